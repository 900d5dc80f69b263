"""The audit application: ``fairstats.audit()``, ``fairstats audit`` and ``fairstats monitor`` commands.

A wing of its own on top of the statistics (which never import it), with one road for every task (the audit of
decisions, impact ratios, regression, model against model, the monitor):

1. the options, declared once with the tasks each applies to and checked once
   (:mod:`~fairstats.auditing.options`, :mod:`~fairstats.auditing.checks`);
2. the input step: a file or a frame of any engine (:mod:`~fairstats.auditing.inputs`);
3. the row step: counting, ``where`` filters, the reader contract, the decision rule
   (:mod:`~fairstats.auditing.rows`, :mod:`~fairstats.auditing.columns`);
4. the validated grouping (:mod:`~fairstats.auditing.grouping`);
5. the task's tables: decisions (:mod:`~fairstats.auditing.result`, with :mod:`~fairstats.auditing.prepare`,
   :mod:`~fairstats.auditing.tables`, :mod:`~fairstats.auditing.levels`, :mod:`~fairstats.auditing.scores`,
   :mod:`~fairstats.auditing.search`), :mod:`~fairstats.auditing.impact`,
   :mod:`~fairstats.auditing.regression`, :mod:`~fairstats.auditing.comparison`,
   :mod:`~fairstats.auditing.monitor`;
6. one result protocol (:class:`AuditResult`, :mod:`~fairstats.auditing.protocol`) and what saves it: figures,
   report and templates (:mod:`~fairstats.auditing.report`, :mod:`~fairstats.auditing.methods`,
   :mod:`~fairstats.auditing.provenance`), the PDF (:mod:`~fairstats.auditing.pdf`), the output folder
   (:mod:`~fairstats.auditing.folder`);

and the command line over it (:mod:`~fairstats.auditing.cli`, exit statuses in
:mod:`~fairstats.auditing.exits`).
"""

from fairstats.auditing.errors import (
    AuditError,
    DuplicateColumnWarning,
    GroupLookalikeWarning,
    GroupWhitespaceWarning,
)
from fairstats.auditing.grouping import Grouping
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.protocol import AuditResult
from fairstats.auditing.result import Audit, audit

__all__ = [
    "Audit",
    "AuditResult",
    "AuditError",
    "AuditOptions",
    "DuplicateColumnWarning",
    "GroupLookalikeWarning",
    "GroupWhitespaceWarning",
    "Grouping",
    "audit",
]
