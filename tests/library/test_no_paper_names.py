"""No public name of the library is about a paper, and no public docstring describes a paper's erroneous or
as-published quantity as the library's (issue 24).

The library may cite a paper as the source of a correct method or as an example ("paper B, Eq. 3"); what a
paper got wrong lives with that paper's reproduction (``compendium.paper_b.as_published``). This walks
``fairstats.__all__``, the public methods and properties of each public class, and the fields of each result
dataclass, and fails naming the object and the phrase.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import fairstats

#: Substrings no public name (or dataclass field name) may contain.
DENIED_NAME_PARTS = (
    "paper",  # a function, class or field named after a paper (mcnemar_midp_as_published, *_paper_formula)
    "as_published",  # a quantity "as published": the printed, not the correct, number
)
#: Phrases no public docstring may contain (lower-cased), each with why.
DENIED_PHRASES = {
    "as published": "computing the number as a paper printed it, not the correct one",
    "as-published": "the same, as an option or method value (method='as-published')",
    "as_published": "the same, as a name referred to in the text",
    "(as the paper)": "a verdict phrased against a paper's verdict ('no violation (as the paper)')",
    "the paper's formula": "a paper's own formula described as what the function computes",
    "paper_formula": "the former fold t field/test name of a paper's formula",
    "erroneous": "a formula the docstring itself calls wrong, kept in the library",
    "wrong statistic": "the same",
}


def _public_members(obj: object):
    """(qualified name, object) for the public methods and properties of a class defined in fairstats."""
    for name, member in inspect.getmembers(obj):
        if name.startswith("_"):
            continue
        target = member.fget if isinstance(member, property) else member
        module = getattr(target, "__module__", "") or ""
        if (inspect.isfunction(target) or inspect.ismethod(target)) and module.startswith("fairstats"):
            yield f"{obj.__name__}.{name}", target


def _walk():
    """(qualified name, docstring, field names) of every public object the walk reaches."""
    for name in sorted(fairstats.__all__):
        obj = getattr(fairstats, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield name, inspect.getdoc(obj) or "", ()
        if inspect.isclass(obj):
            yield from ((q, inspect.getdoc(m) or "", ()) for q, m in _public_members(obj))
            if dataclasses.is_dataclass(obj):
                yield f"{name} fields", "", tuple(f.name for f in dataclasses.fields(obj))


def test_no_public_name_is_about_a_paper():
    bad = [n for n in fairstats.__all__ for part in DENIED_NAME_PARTS if part in n.lower()]
    assert not bad, bad


def test_no_result_field_is_about_a_paper():
    bad = [
        f"{owner}: {field}"
        for owner, _, names in _walk()
        for field in names
        for part in DENIED_NAME_PARTS
        if part in field.lower()
    ]
    assert not bad, bad


def test_no_public_docstring_describes_a_paper_s_erroneous_formula_as_the_library_s():
    bad = [
        f"{owner}: {phrase!r} ({why})"
        for owner, doc, _ in _walk()
        for phrase, why in DENIED_PHRASES.items()
        if phrase in doc.lower()
    ]
    assert not bad, bad


def test_the_walk_reaches_methods_fields_and_docstrings():
    walked = {owner: (doc, names) for owner, doc, names in _walk()}
    assert "FoldTTestResult.to_frame" in walked  # a public method of a result class
    assert "statistic_corrected" in walked["FoldTTestResult fields"][1]  # a dataclass field
    assert "mid-p" in walked["mcnemar_midp"][0]  # a docstring, read whole


@pytest.mark.parametrize(
    ("doc", "caught"),
    [
        ("The p-value as the paper printed it: this is the paper's erroneous formula.", True),
        ("Verdicts: 'violation survives', 'no violation (as the paper)'.", True),
        ("Exact McNemar mid-p test (paper B, Eq. 3; Fagerland et al. 2013).", False),
    ],
)
def test_the_deny_list_catches_what_it_should_and_only_that(doc, caught):
    assert any(phrase in doc.lower() for phrase in DENIED_PHRASES) is caught
