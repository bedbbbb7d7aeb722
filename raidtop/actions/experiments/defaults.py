"""The lab experiments' defaults, with no imports of their own.

``raidtop --help`` and every start of the dashboard build the ``raidtop lab``
parser, whose help shows these; importing the experiment modules for them
cost ~70 ms before the first frame (perf/RESULTS.md, issue 15).
"""

SWEEP_PATTERNS = ("read", "write", "randread", "randwrite")
SWEEP_CHUNKS_KIB = (16, 64, 256, 1024)
SWEEP_BLOCK_SIZES = ("4K", "64K", "1M")
SWEEP_LEVEL = "raid5"
SWEEP_DISKS = 3
SWEEP_DISK_BYTES = 32 << 20
SWEEP_RUNTIME_S = 2

TRADEOFF_LIMITS = ("1000", "10000", "50000", "max")
TRADEOFF_LOAD = "rand-rw"
TRADEOFF_LEVEL = "raid5"
TRADEOFF_DISKS = 3
TRADEOFF_DISK_BYTES = 32 << 20
TRADEOFF_BASELINE_S = 5

BITMAP_WRITES_MIB = (1, 8, 32)
BITMAP_LEVEL = "raid1"
BITMAP_DISKS = 2
BITMAP_DISK_BYTES = 64 << 20

STUDY_LEVELS = ("raid0", "raid1", "raid5")
STUDY_DISKS = 3
STUDY_DISK_BYTES = 64 << 20
STUDY_RUNTIME_S = 5
STUDY_RUNS = 3

COURSE_STEPS = ("slow", "flakey", "unreadable")
COURSE_DISKS = 3
COURSE_DISK_BYTES = 32 << 20
COURSE_DELAY_MS = 100
COURSE_FLAKEY_S = (3, 3)
COURSE_RUNTIME_S = 5
