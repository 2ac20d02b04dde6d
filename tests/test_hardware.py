"""The hardware model: sizes from sysfs, environment overrides, defaults; `polyfuse sysinfo`."""

from __future__ import annotations

import pytest

from polyfuse import hardware, options
from polyfuse.cli import main as cli_main


@pytest.mark.parametrize("text, expected", [("48K", 48 * 1024), ("1024K", 1 << 20), ("32M", 32 << 20),
                                            ("65536", 65536), (" 2M\n", 2 << 20)])
def test_parse_size(text, expected):
    assert hardware.parse_size(text) == expected


def _fake_sysfs(root, entries):
    for index, (level, kind, size, line) in enumerate(entries):
        folder = root / f"index{index}"
        folder.mkdir(parents=True)
        (folder / "level").write_text(f"{level}\n")
        (folder / "type").write_text(f"{kind}\n")
        (folder / "size").write_text(f"{size}\n")
        (folder / "coherency_line_size").write_text(f"{line}\n")


def test_reads_data_caches_and_ignores_the_instruction_cache(tmp_path, monkeypatch):
    for name in options.CACHE_SIZE_KNOBS.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(hardware, "available_cpus", lambda: 2)  # 32 MiB is within the per-cpu cap
    _fake_sysfs(tmp_path, [(1, "Data", "48K", 64), (1, "Instruction", "32K", 64), (2, "Unified", "1024K", 64),
                           (3, "Unified", "32768K", 64)])
    info = options.machine(tmp_path)
    assert (info.l1d, info.l2, info.l3, info.line) == (48 << 10, 1 << 20, 32 << 20, 64)
    assert dict(info.sources) == {"l1d": "sysfs", "l2": "sysfs", "l3": "sysfs", "line": "sysfs"}


def test_a_last_level_cache_beyond_the_share_of_the_usable_cpus_is_capped(tmp_path, monkeypatch):
    """A VM's sysfs shows the host's whole L3 (480 MiB on 2 vCPUs): counted as 16 MiB per CPU."""
    monkeypatch.delenv("POLYFUSE_L3_BYTES", raising=False)
    monkeypatch.setattr(hardware, "available_cpus", lambda: 2)
    _fake_sysfs(tmp_path, [(1, "Data", "48K", 64), (2, "Unified", "2048K", 64), (3, "Unified", "491520K", 64)])
    info = hardware.cpu_info(tmp_path)
    assert info.l3 == 2 * hardware.L3_PER_CPU_CAP and dict(info.sources)["l3"] == "sysfs, capped per cpu"
    monkeypatch.setenv("POLYFUSE_L3_BYTES", "480M")
    assert options.machine(tmp_path).l3 == 480 << 20


def test_environment_overrides_and_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYFUSE_L2_BYTES", "2M")
    monkeypatch.delenv("POLYFUSE_L1_BYTES", raising=False)
    info = options.machine(tmp_path / "missing")
    assert info.l2 == 2 << 20 and dict(info.sources)["l2"] == "env"
    assert info.l1d == hardware.DEFAULTS["l1d"] and dict(info.sources)["l1d"] == "default"


def test_sysinfo_prints_the_model(capsys):
    assert cli_main(["sysinfo"]) == 0
    text = capsys.readouterr().out
    for word in ("islpy", "llvmlite", "l1d", "l2", "l3", "line", "cache:"):
        assert word in text
