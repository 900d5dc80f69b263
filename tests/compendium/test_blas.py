"""compendium.publish.blas: the workflow's declared OpenBLAS kernels, exported where the CPU runs them."""

import pytest

from compendium.publish.blas import CORETYPE_FLAGS, pin_openblas_coretype

# The flags line of an AVX2 + AVX-512 x86-64 CPU (abridged /proc/cpuinfo of this project's AMD EPYC machine).
AVX512 = "processor\t: 0\nflags\t\t: fpu sse3 sse4_2 avx avx2 fma avx512f avx512bw avx512dq avx512vl\n"
SSE_ONLY = "processor\t: 0\nflags\t\t: fpu sse3 sse4_2\n"


@pytest.fixture
def cpu(tmp_path):
    def write(text):
        path = tmp_path / "cpuinfo"
        path.write_text(text)
        return path

    return write


def test_pins_haswell_where_the_cpu_has_avx2_and_fma(cpu):
    env = {}
    coretype, note = pin_openblas_coretype("Haswell", environ=env, machine="x86_64", cpuinfo=cpu(AVX512))
    assert coretype == "Haswell" and env == {"OPENBLAS_CORETYPE": "Haswell"}
    assert "every job" in note


def test_keeps_openblas_choice_on_a_cpu_without_the_kernels(cpu):
    env = {}
    coretype, note = pin_openblas_coretype("Haswell", environ=env, machine="x86_64", cpuinfo=cpu(SSE_ONLY))
    assert coretype is None and env == {}
    assert "lacks avx2, fma" in note


def test_keeps_openblas_choice_off_x86(cpu):
    env = {}
    coretype, note = pin_openblas_coretype("Haswell", environ=env, machine="aarch64", cpuinfo=cpu(AVX512))
    assert coretype is None and env == {} and "aarch64" in note


def test_an_explicit_environment_value_wins(cpu):
    env = {"OPENBLAS_CORETYPE": "SkylakeX"}
    coretype, note = pin_openblas_coretype("Haswell", environ=env, machine="x86_64", cpuinfo=cpu(AVX512))
    assert coretype == "SkylakeX" and env == {"OPENBLAS_CORETYPE": "SkylakeX"} and "kept" in note


def test_null_leaves_the_choice_to_openblas(cpu):
    env = {}
    assert pin_openblas_coretype(None, environ=env, machine="x86_64", cpuinfo=cpu(AVX512))[0] is None
    assert env == {}


def test_unknown_core_type_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r"'Zen9' is not one of \['Haswell', 'Nehalem', 'Prescott'"):
        pin_openblas_coretype("Zen9", environ={})
    assert "Haswell" in CORETYPE_FLAGS


def test_unreadable_cpuinfo_means_no_pin(tmp_path):
    env = {}
    missing = tmp_path / "missing"
    coretype, _ = pin_openblas_coretype("Haswell", environ=env, machine="x86_64", cpuinfo=missing)
    assert coretype is None and env == {}
