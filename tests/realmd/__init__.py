"""Real md tests: a throwaway qemu VM boots Debian's kernel so mdadm and
raidtop run against live md arrays (the host kernel has no md driver)."""
