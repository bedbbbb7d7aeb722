"""hwmon chips are mapped to the block device they measure (NVMe, drivetemp)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from raidtop.collect.hwmon import read_sensors
from raidtop.collect.source import Root

CORPUS_SYS = Path(__file__).resolve().parent.parent / "data" / "corpus" / "hwmon" / "prometheus-node_exporter__sys"
NVME = "devices/pci0000:00/0000:00:02.1/0000:01:00.0/nvme/nvme0"


def test_nvme_composite_names_its_namespace(tmp_path: Path):
    # node_exporter's recorded NVMe controller with its hwmon3 chip, linked as sysfs links it.
    sys = tmp_path / "sys"
    shutil.copytree(CORPUS_SYS / NVME, sys / NVME, symlinks=True)
    (sys / NVME / "nvme0n1").mkdir()
    (sys / "class" / "hwmon").mkdir(parents=True)
    os.symlink(f"../../{NVME}/hwmon3", sys / "class" / "hwmon" / "hwmon3")
    device_link = sys / NVME / "hwmon3" / "device"
    if device_link.is_symlink():
        device_link.unlink()
    os.symlink("../../nvme0", device_link)
    sensors, notes = read_sensors(Root(tmp_path))
    assert notes == []
    assert sensors and all(s.device == "nvme0n1" for s in sensors)
    assert any(s.label == "Composite" for s in sensors)


def test_drivetemp_names_its_disk(tmp_path: Path):
    sys = tmp_path / "sys"
    chip = sys / "devices" / "scsi" / "0:0:0:0" / "hwmon" / "hwmon7"
    chip.mkdir(parents=True)
    (sys / "devices" / "scsi" / "0:0:0:0" / "block" / "sdb").mkdir(parents=True)
    (chip / "name").write_text("drivetemp\n")
    (chip / "temp1_input").write_text("41000\n")
    os.symlink("../..", chip / "device")
    (sys / "class" / "hwmon").mkdir(parents=True)
    os.symlink("../../devices/scsi/0:0:0:0/hwmon/hwmon7", sys / "class" / "hwmon" / "hwmon7")
    (sensor,) = read_sensors(Root(tmp_path))[0]
    assert (sensor.device, sensor.value, sensor.chip) == ("sdb", 41.0, "drivetemp-7 (sdb)")
