"""The code-size measurement of GPU kernels: the cubin's sections read per function, names made readable,
bad options refused, and a real kernel linked with the gpu extra's nvJitLink."""

import struct
import subprocess
import sys

import pytest

from monster_zoo.benchmarks import gpu_code_size
from monster_zoo.envs.gpu.ptx_check import code_sections

needs_linker = pytest.mark.skipif(
    subprocess.run(
        [sys.executable, "-c", "from cuda.bindings import nvjitlink; nvjitlink.version(); import numba_cuda"],
        capture_output=True,
    ).returncode
    != 0,
    reason="numba-cuda or nvJitLink is not installed (the gpu extra; make test installs it)",
)


def elf_with_sections(sections: list[tuple[str, int]]) -> bytes:
    """A 64-bit little-endian ELF file whose section headers name ``sections`` (name, size), preceded by
    the null section and followed by the section-name table."""
    names = b"\0" + b"".join(name.encode() + b"\0" for name, _ in sections) + b".shstrtab\0"
    header_at, entry = 64 + len(names), 64
    headers, at = [bytes(entry)], 1
    for name, size in sections:
        headers.append(struct.pack("<IIQQQQIIQQ", at, 1, 6, 0, 0, size, 0, 0, 4, 0))
        at += len(name) + 1
    headers.append(struct.pack("<IIQQQQIIQQ", at, 3, 0, 0, 64, len(names), 0, 0, 1, 0))
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack(
        "<HHIQQQIHHHHHH", 2, 190, 1, 0, 0, header_at, 0, 64, 0, 0, entry, len(headers), len(headers) - 1
    )
    return header + names + b"".join(headers)


def test_code_sections_gives_each_functions_text_section_and_nothing_else():
    cubin = elf_with_sections(
        [(".text.kernel", 96), (".nv.info", 8), (".text._ZN4rules9main_stepB2v1E", 320), (".data", 4)]
    )
    assert code_sections(cubin) == {"kernel": 96, "_ZN4rules9main_stepB2v1E": 320}


def test_code_sections_refuses_what_is_not_a_64_bit_elf_file():
    with pytest.raises(ValueError, match="ELF"):
        code_sections(b"not a cubin at all, just some bytes to read")


def test_readable_takes_the_last_name_of_a_numba_mangled_name():
    mangled = "_ZN11monster_zoo4envs13monster_arena5rules9main_stepB2v7B42c8tJTIcFKzyF2ILShI4CrgQElJY_3dEAA"
    assert gpu_code_size.readable(mangled) == "main_step"
    assert gpu_code_size.readable("plain_entry") == "plain_entry"


def test_unknown_games_are_refused_with_the_available_ones(capsys):
    with pytest.raises(SystemExit, match="available: .*monster_arena-v0"):
        gpu_code_size.main(["--games", "no_such_game-v0"])


@needs_linker
def test_unknown_kernel_is_refused_with_the_valid_ones(tmp_path):
    with pytest.raises(SystemExit, match="valid: .*apply_action.*random_steps"):
        gpu_code_size.main(["--kernels", "no_such_kernel", "--json", str(tmp_path / "sizes.jsonl")])
    assert not (tmp_path / "sizes.jsonl").exists()  # nothing written for a refused option


@needs_linker
def test_a_linked_kernel_reports_its_entrys_machine_code():
    """A small kernel of the shared engine, linked for cc 9.0: its entry's code is in the cubin."""
    import monster_zoo
    from monster_zoo.envs.gpu.drivers import driver_sources
    from monster_zoo.envs.gpu.ptx_check import check_kernel

    function, argtypes = driver_sources(monster_zoo.spec("monster_arena-v0"))["count_illegal"]
    figures = check_kernel(function, argtypes, (9, 0))
    assert figures.ok, figures.error
    entries = [name for name in figures.function_bytes if "count_illegal" in name]
    assert len(entries) == 1 and figures.function_bytes[entries[0]] > 0
    assert sum(figures.function_bytes.values()) < figures.cubin_bytes
