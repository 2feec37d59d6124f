"""Stand-ins the tests share: loopback HTTP servers with real APIs' shapes, real release trees, a clock."""
