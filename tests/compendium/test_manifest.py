"""data/raw/SHA256SUMS: every vendored file is listed and matches; every listed file is present.

The hashes are computed here with hashlib, independently of compendium.data.download.
"""

from __future__ import annotations

import hashlib

import pytest
from repo_paths import RAW

from compendium.data import download

NOT_DATA = {"SHA256SUMS", "README.md"}

# sha256 of the ProPublica files as recorded when they were vendored (shared/data/raw/PROVENANCE.md)
PROVENANCE_SHA256 = {
    "compas-scores-two-years.csv": "c451db85908b2f7fef1d83203bedf6b71ecda0d5af468d82ae62178f91d0cc7d",
    "compas-scores-two-years-violent.csv": "918e218ba181d4db8a7266977d23ca7a5ecf1bc7d5defd7b2f27bf3cbd9763e3",
    "paper-b-authors/Y Dataframe with Probabilities - Fold 0.csv": (
        "d4315536c2f74c9d77f6f7a5bfe9033a1191f1605e1e5091ecee011b32ef1b6c"
    ),
}


def _manifest() -> dict[str, str]:
    out = {}
    for line in (RAW / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split("  ", 1)
        assert name not in out, f"{name} listed twice"
        out[name] = digest
    return out


def _present() -> set[str]:
    return {p.relative_to(RAW).as_posix() for p in RAW.rglob("*") if p.is_file()} - NOT_DATA


def test_every_file_is_listed_and_every_listed_file_exists():
    listed = set(_manifest())
    present = _present()
    assert sorted(present - listed) == [], "files under data/raw missing from SHA256SUMS"
    assert sorted(listed - present) == [], "files in SHA256SUMS missing under data/raw"
    assert len(listed) == 2 + 250 + 8


def test_every_file_matches_its_sha256():
    bad = {
        name: (digest, hashlib.sha256((RAW / name).read_bytes()).hexdigest())
        for name, digest in _manifest().items()
        if hashlib.sha256((RAW / name).read_bytes()).hexdigest() != digest
    }
    assert bad == {}


@pytest.mark.parametrize("name", sorted(PROVENANCE_SHA256))
def test_manifest_agrees_with_provenance(name):
    assert _manifest()[name] == PROVENANCE_SHA256[name]


def test_verify_manifest_accepts_the_vendored_data():
    report = download.verify_manifest(RAW)
    assert report.ok
    assert len(report.files) == 260
    assert set(report.files["status"]) == {"ok"}
