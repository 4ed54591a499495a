"""What the tests share: paths, the pinned binaries, the fake provider, recording comms,
waiting, the second host, the browser and the usage oracle."""
