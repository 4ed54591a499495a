"""The provider conformance suite: one set of obligations every registered provider meets."""
