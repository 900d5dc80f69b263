"""compendium.data.download: checksummed downloads from a local HTTP server on 127.0.0.1, manifest checks."""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import threading

import pytest
import requests
from repo_paths import RAW, ROOT

from compendium.data import download, nij
from compendium.data.download import ChecksumError

FOLD = "nij-paper-folds/fold_000.csv"
OFFICIAL_SAMPLE = ROOT / "tests" / "fixtures" / "nij-official-sample.csv"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


@pytest.fixture
def server(tmp_path, monkeypatch):
    """Serve ``tmp_path / "www"`` on 127.0.0.1 (a free port); yields (folder, base URL)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(www))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield www, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture(scope="module")
def manifest() -> dict[str, str]:
    return download.read_manifest(RAW / "SHA256SUMS")


def _corrupt(data: bytes, at: int = 1000) -> bytes:
    """The same bytes with one byte changed."""
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


def test_fetch_accepts_good_file(server, tmp_path, manifest):
    www, base = server
    shutil.copyfile(RAW / FOLD, www / "Fold 0.csv")
    dest = tmp_path / "out" / "fold_000.csv"
    got = download.fetch(f"{base}/Fold%200.csv", dest, sha256=manifest[FOLD])
    assert got == dest
    assert dest.read_bytes() == (RAW / FOLD).read_bytes()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["fold_000.csv"]  # no temporary file left


def test_fetch_refuses_corrupted_file_and_leaves_nothing(server, tmp_path, manifest):
    www, base = server
    good = (RAW / FOLD).read_bytes()
    (www / "Fold 0.csv").write_bytes(_corrupt(good))
    actual = download.sha256sum(www / "Fold 0.csv")
    expected = manifest[FOLD]
    assert actual != expected
    dest = tmp_path / "out" / "fold_000.csv"
    with pytest.raises(ChecksumError) as info:
        download.fetch(f"{base}/Fold%200.csv", dest, sha256=expected)
    message = str(info.value)
    assert "fold_000.csv" in message and "Fold%200.csv" in message
    assert f"expected sha256 {expected}" in message
    assert f"got sha256 {actual}" in message
    assert isinstance(info.value, ValueError)
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == []


def test_forced_fetch_of_corrupted_file_keeps_existing_good_file(server, tmp_path, manifest):
    www, base = server
    good = (RAW / FOLD).read_bytes()
    (www / "f.csv").write_bytes(_corrupt(good, at=5))
    dest = tmp_path / "fold_000.csv"
    dest.write_bytes(good)
    with pytest.raises(ChecksumError, match="expected sha256"):
        download.fetch(f"{base}/f.csv", dest, sha256=manifest[FOLD], force=True)
    assert dest.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fold_000.csv", "www"]


def test_fetch_skips_download_when_file_is_already_right(server, tmp_path, manifest):
    _, base = server
    dest = tmp_path / "fold_000.csv"
    shutil.copyfile(RAW / FOLD, dest)
    # the URL does not exist: a download attempt would fail with 404
    assert download.fetch(f"{base}/absent.csv", dest, sha256=manifest[FOLD]) == dest
    with pytest.raises(requests.HTTPError, match="404"):
        download.fetch(f"{base}/absent.csv", dest, sha256=manifest[FOLD], force=True)
    assert dest.read_bytes() == (RAW / FOLD).read_bytes()


def test_fetch_replaces_a_wrong_existing_file(server, tmp_path, manifest):
    www, base = server
    shutil.copyfile(RAW / FOLD, www / "f.csv")
    dest = tmp_path / "fold_000.csv"
    dest.write_bytes(b"stale")
    download.fetch(f"{base}/f.csv", dest, sha256=manifest[FOLD])
    assert dest.read_bytes() == (RAW / FOLD).read_bytes()


def test_fetch_failed_download_leaves_nothing(server, tmp_path, manifest):
    _, base = server
    dest = tmp_path / "out" / "x.csv"
    with pytest.raises(requests.HTTPError, match="404"):
        download.fetch(f"{base}/absent.csv", dest, sha256=manifest[FOLD])
    assert list(dest.parent.iterdir()) == []


def test_fetch_validates_arguments(tmp_path):
    with pytest.raises(ValueError, match="`sha256` must be 64 hex digits, got 'abc'"):
        download.fetch("http://127.0.0.1:9/x", tmp_path / "x", sha256="abc")
    with pytest.raises(ValueError, match="`url` must be an http"):
        download.fetch("ftp://example.org/x", tmp_path / "x", sha256="0" * 64)


def test_verify_file_on_corrupted_copy_of_vendored_file(tmp_path, manifest):
    name = "compas-scores-two-years-violent.csv"
    copy = tmp_path / name
    copy.write_bytes(_corrupt((RAW / name).read_bytes(), at=123_456))
    expected = manifest[name]
    actual = download.sha256sum(copy)
    with pytest.raises(ChecksumError) as info:
        download.verify_file(copy, expected)
    message = str(info.value)
    assert str(copy) in message
    assert expected in message and actual in message
    assert message.index(expected) < message.index(actual)  # expected first, then actual
    assert download.verify_file(RAW / name, expected) == RAW / name
    assert download.verify_file(RAW / name, f"sha256:{expected.upper()}") == RAW / name


def test_verify_file_validates_arguments(tmp_path):
    with pytest.raises(ValueError, match="is not a file"):
        download.verify_file(tmp_path / "absent", "0" * 64)
    with pytest.raises(TypeError, match="`sha256` must be a hex string"):
        download.verify_file(RAW / FOLD, 123)


def test_verify_manifest_reports_every_problem(tmp_path):
    root = tmp_path / "raw"
    root.mkdir()
    names = ["compas-scores-two-years.csv", "paper-b-authors/Contingencies.csv", FOLD]
    lines = []
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(RAW / name, root / name)
        lines.append(f"{download.sha256sum(RAW / name)}  {name}")
    (root / "SHA256SUMS").write_text("\n".join(lines) + "\n")
    (root / "README.md").write_text("not listed, not checked\n")
    assert download.verify_manifest(root).ok
    (root / FOLD).write_bytes(_corrupt((RAW / FOLD).read_bytes()))
    (root / "paper-b-authors/Contingencies.csv").unlink()
    (root / "extra.csv").write_text("a\n")
    report = download.verify_manifest(root, check=False)
    assert not report.ok
    assert dict(zip(report.files["path"], report.files["status"], strict=True)) == {
        "compas-scores-two-years.csv": "ok",
        "extra.csv": "unlisted",
        FOLD: "mismatch",
        "paper-b-authors/Contingencies.csv": "missing",
    }
    with pytest.raises(ChecksumError, match=r"3 file\(s\).*fail SHA256SUMS") as info:
        download.verify_manifest(root)
    assert re.search(
        r"fold_000\.csv': mismatch \(expected sha256 [0-9a-f]{64}, got sha256 [0-9a-f]{64}\)", str(info.value)
    )


def test_read_manifest_rejects_malformed_lines(tmp_path):
    path = tmp_path / "SHA256SUMS"
    path.write_text(f"{'a' * 64}  x.csv\nnot-a-hash  y.csv\n")
    with pytest.raises(ValueError, match="line 2: 'not-a-hash' is not a sha256"):
        download.read_manifest(path)
    path.write_text(f"{'a' * 64}  x.csv\n{'b' * 64} *x.csv\n")
    with pytest.raises(ValueError, match="line 2: 'x.csv' listed twice"):
        download.read_manifest(path)


def test_sources_cover_the_manifest_at_pinned_commits(manifest):
    assert set(download.SOURCES) == set(manifest)
    assert len(download.SOURCES) == 260
    for rel, url in download.SOURCES.items():
        assert url.startswith("https://raw.githubusercontent.com/"), rel
        assert download.PROPUBLICA_COMMIT in url or download.NIJ_PAPER_COMMIT in url, rel
        assert " " not in url, rel
    assert download.SOURCES["nij-paper-folds/fold_042.csv"].endswith(
        f"/{download.NIJ_PAPER_COMMIT}/Folds/Fold%2042.csv"
    )
    assert download.SOURCES["compas-scores-two-years.csv"] == (
        "https://raw.githubusercontent.com/propublica/compas-analysis/"
        "bafff5da3f2e45eca6c2d5055faad269defd135a/compas-scores-two-years.csv"
    )
    assert download.SOURCES["paper-b-authors/Y Dataframe with Probabilities - Fold 0.csv"].endswith(
        "/Probability%20Frames/Y%20Dataframe%20with%20Probabilities%20-%20Fold%200.csv"
    )


def test_fetch_official_nij_records_sha256(server, tmp_path):
    www, base = server
    shutil.copyfile(OFFICIAL_SAMPLE, www / "rows.csv")
    dest = tmp_path / "ext" / "nij-official.csv"
    log = tmp_path / "official.log"
    download.fetch_official_nij(f"{base}/rows.csv?accessType=DOWNLOAD", dest, expected_rows=50, log=log)
    assert log.read_text().endswith(f"ok: 50 rows, sha256 {download.sha256sum(OFFICIAL_SAMPLE)}\n")
    assert dest.read_bytes() == OFFICIAL_SAMPLE.read_bytes()
    record = (tmp_path / "ext" / "nij-official.csv.sha256").read_text()
    assert record == f"{download.sha256sum(OFFICIAL_SAMPLE)}  nij-official.csv\n"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["nij-official.csv", "nij-official.csv.sha256"]
    assert nij.read_official(dest).shape == (50, len(nij.TABLE_COLUMNS))


def test_fetch_official_nij_refuses_wrong_content(server, tmp_path):
    www, base = server
    text = OFFICIAL_SAMPLE.read_text().replace(",WHITE,", ",ASIAN,", 1)
    (www / "rows.csv").write_text(text)
    dest = tmp_path / "ext" / "nij-official.csv"
    with pytest.raises(
        ValueError, match=r"rows\.csv.*is not the official NIJ dataset.*'Race' has value 'ASIAN'"
    ):
        download.fetch_official_nij(f"{base}/rows.csv", dest, expected_rows=50)
    assert list(dest.parent.iterdir()) == []
    shutil.copyfile(OFFICIAL_SAMPLE, www / "rows.csv")
    with pytest.raises(ValueError, match="50 data rows, expected 25835"):
        download.fetch_official_nij(f"{base}/rows.csv", dest)
    assert list(dest.parent.iterdir()) == []


def test_fetch_writes_its_log(server, tmp_path, manifest):
    www, base = server
    (www / "bad.csv").write_bytes(_corrupt((RAW / FOLD).read_bytes()))
    log = tmp_path / "logs" / "fetch.log"
    with pytest.raises(ChecksumError):
        download.fetch(f"{base}/bad.csv", tmp_path / "x.csv", sha256=manifest[FOLD], log=log)
    text = log.read_text()
    assert "bad.csv" in text and "failed, no file written: ChecksumError" in text
    shutil.copyfile(RAW / FOLD, www / "good.csv")
    download.fetch(f"{base}/good.csv", tmp_path / "x.csv", sha256=manifest[FOLD], log=log)
    assert log.read_text().endswith("downloaded, sha256 ok\n")


def test_command_line(server, tmp_path, manifest, capsys):
    www, base = server
    shutil.copyfile(RAW / FOLD, www / "f.csv")
    dest = tmp_path / "f.csv"
    assert download.main([str(dest), "--url", f"{base}/f.csv", "--sha256", manifest[FOLD]]) == 0
    assert dest.read_bytes() == (RAW / FOLD).read_bytes()
    assert "ok:" in capsys.readouterr().out
    (www / "f.csv").write_bytes(_corrupt((RAW / FOLD).read_bytes()))
    with pytest.raises(ChecksumError):
        download.main([str(tmp_path / "g.csv"), "--url", f"{base}/f.csv", "--sha256", manifest[FOLD]])
    assert not (tmp_path / "g.csv").exists()
