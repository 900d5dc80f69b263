"""The audit application: ``fairstats.audit(...) -> Audit`` and the ``fairstats audit`` command line.

A wing of its own on top of the statistics (which never import it): options checked once
(:mod:`~fairstats.auditing.options`), inputs read (:mod:`~fairstats.auditing.inputs`) and prepared
(:mod:`~fairstats.auditing.prepare`), the tables as a pure function (:mod:`~fairstats.auditing.tables`,
:mod:`~fairstats.auditing.levels`, :mod:`~fairstats.auditing.search`), the :class:`Audit` object
(:mod:`~fairstats.auditing.result`) and what saves it: figures, report and templates, the output folder; the
command line (:mod:`~fairstats.auditing.cli`). ``fairstats audit --impact-ratios`` (the four-fifths rule and
NYC Local Law 144) has its own options, input, result and report in :mod:`~fairstats.auditing.impact`.
"""

from fairstats.auditing.errors import AuditError, GroupWhitespaceWarning
from fairstats.auditing.grouping import Grouping
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.result import Audit, audit

__all__ = ["Audit", "AuditError", "AuditOptions", "GroupWhitespaceWarning", "Grouping", "audit"]
