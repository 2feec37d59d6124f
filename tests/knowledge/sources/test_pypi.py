"""The pypi and wheel sources against a real PEP 691 index on 127.0.0.1 serving real vLLM releases."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.httpindex import IndexServer
from support.loopback import closed_port
from support.releases import CACHE, WHEELS, sdist, wheel

from vllm_quant_mcp.knowledge.errors import ChecksumError, NetworkError, ReleaseNotFoundError, SourceError
from vllm_quant_mcp.knowledge.sources.archive import UnsafeArchiveError, extract_tar
from vllm_quant_mcp.knowledge.sources.package_index import IndexFile
from vllm_quant_mcp.knowledge.sources.pypi import PypiSource
from vllm_quant_mcp.knowledge.sources.wheel import WheelSource, choose_wheel

WHEEL = CACHE / "wheels" / WHEELS["0.4.0"].filename  # the real 0.4.0 wheel (0.4.0 has no sdist)
WHEEL_SHA256 = WHEELS["0.4.0"].sha256


@pytest.fixture(scope="module")
def index() -> Iterator[IndexServer]:
    with IndexServer([sdist("0.6.3"), sdist("0.11.0"), wheel("0.4.0")]) as server:
        yield server


def sdist_python_files(path: Path) -> dict[str, bytes]:
    """vllm/**.py of an sdist, read with tarfile directly (independently of the source under test)."""
    with tarfile.open(path) as tar:
        return {
            m.name.split("/", 1)[1]: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile() and m.name.split("/", 1)[1].startswith("vllm/") and m.name.endswith(".py")
        }


def tree_python_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "vllm").rglob("*.py")}


def test_pypi_source_fetches_the_sdist_through_the_json_index_and_strips_its_top_folder(
    index: IndexServer, tmp_path: Path
) -> None:
    dest = tmp_path / "tree"
    dest.mkdir()
    info = PypiSource(index.index_url, tmp_path / "sdists").fetch("v0.6.3", dest)
    assert info.kind == "pypi"
    assert info.origin == f"{index.base_url}/files/vllm-0.6.3.tar.gz"
    assert info.sha256 == hashlib.sha256(sdist("0.6.3").read_bytes()).hexdigest()
    assert tree_python_files(dest) == sdist_python_files(sdist("0.6.3"))
    assert (dest / "setup.py").is_file()
    assert not (dest / "vllm-0.6.3").exists()


def test_pypi_source_keeps_no_sdist_unless_asked(index: IndexServer, tmp_path: Path) -> None:
    dest = tmp_path / "tree"
    dest.mkdir()
    PypiSource(index.index_url, tmp_path / "sdists").fetch("v0.6.3", dest)
    assert list((tmp_path / "sdists").iterdir()) == []
    assert (dest / "vllm" / "__init__.py").is_file()


def test_pypi_source_hands_every_sdist_file_to_the_pack_builder_as_tarfile_reads_it(
    index: IndexServer, tmp_path: Path
) -> None:
    added: dict[str, bytes] = {}
    info = PypiSource(index.index_url, tmp_path / "sdists").fetch_files("v0.6.3", lambda p, d: added.update({p: d}))
    with tarfile.open(sdist("0.6.3")) as tar:
        expected = {
            m.name.split("/", 1)[1]: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }
    assert {p: bytes(d) for p, d in added.items()} == expected
    assert info.sha256 == hashlib.sha256(sdist("0.6.3").read_bytes()).hexdigest()


def test_pypi_source_keeps_the_verified_sdist_when_asked_and_reuses_it_without_the_network(
    index: IndexServer, tmp_path: Path
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    PypiSource(index.index_url, tmp_path / "sdists", keep_sdist=True).fetch("v0.11.0", first)
    assert (tmp_path / "sdists" / "vllm-0.11.0.tar.gz").read_bytes() == sdist("0.11.0").read_bytes()
    info = PypiSource("http://127.0.0.1:9/simple", tmp_path / "sdists").fetch("v0.11.0", second)
    assert info.origin == f"{index.base_url}/files/vllm-0.11.0.tar.gz"
    assert tree_python_files(second) == tree_python_files(first)


def test_pypi_source_rejects_a_download_whose_sha256_differs_from_the_index(index: IndexServer, tmp_path: Path) -> None:
    index.wrong_sha256.add("vllm-0.6.3.tar.gz")
    try:
        with pytest.raises(ChecksumError, match="sha256"):
            PypiSource(index.index_url, tmp_path / "sdists").fetch("v0.6.3", tmp_path)
    finally:
        index.wrong_sha256.clear()
    assert list((tmp_path / "sdists").iterdir()) == []


def test_pypi_source_names_the_nearest_releases_for_a_version_the_index_lacks(
    index: IndexServer, tmp_path: Path
) -> None:
    with pytest.raises(ReleaseNotFoundError) as caught:
        PypiSource(index.index_url, tmp_path / "sdists").fetch("v0.6.4", tmp_path)
    assert caught.value.suggestions == ["v0.6.3", "v0.4.0", "v0.11.0"]
    assert "v0.6.3" in str(caught.value)


def test_pypi_source_says_the_index_is_unreachable_when_the_port_is_closed(tmp_path: Path) -> None:
    with pytest.raises(NetworkError, match=r"unreachable.*cache was left as it was"):
        PypiSource(f"http://127.0.0.1:{closed_port()}/simple", tmp_path / "sdists").fetch("v0.6.3", tmp_path)


def test_wheel_source_reads_only_the_python_members_of_a_real_wheel_over_range_requests(
    index: IndexServer, tmp_path: Path
) -> None:
    index.bytes_sent.clear()
    info = WheelSource(index.index_url).fetch("v0.4.0", tmp_path)
    with zipfile.ZipFile(WHEEL) as wheel:
        expected = {n: wheel.read(n) for n in wheel.namelist() if n.startswith("vllm/") and n.endswith(".py")}
    assert tree_python_files(tmp_path) == expected
    assert info.kind == "wheel"
    assert info.sha256 == WHEEL_SHA256
    assert index.bytes_sent[WHEEL.name] < WHEEL.stat().st_size // 20


def test_wheel_source_downloads_the_whole_wheel_when_the_server_ignores_range(
    index: IndexServer, tmp_path: Path
) -> None:
    dest = tmp_path / "tree"
    dest.mkdir()
    index.range_enabled = False
    try:
        WheelSource(index.index_url).fetch("v0.4.0", dest)
    finally:
        index.range_enabled = True
    assert (dest / "vllm" / "model_executor" / "layers" / "quantization" / "__init__.py").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["tree"]


def test_pypi_source_reads_a_wheel_when_the_release_has_no_sdist(index: IndexServer, tmp_path: Path) -> None:
    info = PypiSource(index.index_url, tmp_path / "sdists", WheelSource(index.index_url)).fetch("v0.4.0", tmp_path)
    assert info.kind == "wheel"
    assert info.origin.endswith(WHEEL.name)


def test_choose_wheel_prefers_the_smallest_x86_64_wheel() -> None:
    def wheel(name: str, size: int) -> IndexFile:
        return IndexFile(filename=name, url=f"https://x/{name}", sha256="0" * 64, size=size)

    chosen = choose_wheel(
        [
            wheel("vllm-0.15.0-cp38-abi3-manylinux_2_31_aarch64.whl", 1),
            wheel("vllm-0.15.0-cp311-cp311-manylinux1_x86_64.whl", 30),
            wheel("vllm-0.15.0-cp310-cp310-manylinux1_x86_64.whl", 20),
        ]
    )
    assert chosen.filename == "vllm-0.15.0-cp310-cp310-manylinux1_x86_64.whl"


def _hostile_tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:

        def add(name: str, data: bytes = b"x = 1\n", kind: bytes = tarfile.REGTYPE, link: str = "") -> None:
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = link
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)

        add("vllm-9.9.9/vllm/__init__.py")
        add("vllm-9.9.9/../../escaped_dotdot.py")
        add("/tmp/escaped_absolute.py")
        add("vllm-9.9.9/vllm/link_out", kind=tarfile.SYMTYPE, link="/etc")
        add("vllm-9.9.9/vllm/link_out/escaped_through_link.py")
        add("vllm-9.9.9/vllm/hard", kind=tarfile.LNKTYPE, link="/etc/passwd")
        add("vllm-9.9.9/vllm/null_device", kind=tarfile.CHRTYPE)
        add("vllm-9.9.9/vllm/disk_device", kind=tarfile.BLKTYPE)
        add("vllm-9.9.9/vllm/fifo", kind=tarfile.FIFOTYPE)
        add("vllm-9.9.9/vllm/__init__.py", b"overwritten = True\n")
        add("vllm-9.9.9/vllm\\..\\..\\windows_escape.py")
        add("vllm-9.9.9/" + "deep/" * 40 + "../" * 45 + "escaped_long_pax_name.py")
    return buffer.getvalue()


def test_extract_tar_writes_nothing_outside_the_destination_from_a_hostile_archive(tmp_path: Path) -> None:
    archive = tmp_path / "hostile.tar.gz"
    archive.write_bytes(_hostile_tar())
    dest = tmp_path / "a" / "b" / "dest"
    dest.mkdir(parents=True)
    written = extract_tar(archive, dest, strip_components=1)
    inside = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if not p.is_dir())
    assert inside == ["a/b/dest/vllm/__init__.py", "a/b/dest/vllm/link_out/escaped_through_link.py", "hostile.tar.gz"]
    assert written == 2
    assert not Path("/tmp/escaped_absolute.py").exists()
    assert not any(p.is_symlink() for p in dest.rglob("*"))
    assert (dest / "vllm" / "__init__.py").read_bytes() == b"x = 1\n"  # a later member of the same path is dropped


def test_extract_tar_refuses_a_truncated_archive_with_a_source_error(tmp_path: Path) -> None:
    archive = tmp_path / "truncated.tar.gz"
    archive.write_bytes(gzip.compress(gzip.decompress(_hostile_tar())[:1500]))
    with pytest.raises(UnsafeArchiveError, match="truncated"):
        extract_tar(archive, tmp_path / "dest", strip_components=1)


def test_extract_tar_refuses_a_corrupt_header_with_a_source_error(tmp_path: Path) -> None:
    raw = bytearray(gzip.decompress(_hostile_tar()))
    raw[0:4] = b"EVIL"  # the first header's checksum no longer holds
    archive = tmp_path / "corrupt.tar.gz"
    archive.write_bytes(gzip.compress(bytes(raw)))
    with pytest.raises(UnsafeArchiveError, match="corrupt tar header"):
        extract_tar(archive, tmp_path / "dest", strip_components=1)


def test_a_wheel_that_is_not_a_zip_is_a_source_error_naming_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "files" / WHEEL.name
    broken.parent.mkdir()
    broken.write_bytes(b"<html>maintenance</html>" * 100)
    dest = tmp_path / "tree"
    dest.mkdir()
    with IndexServer([broken]) as server, pytest.raises(SourceError, match=rf"{WHEEL.name} .* not a readable zip"):
        WheelSource(server.index_url).fetch("v0.4.0", dest)
