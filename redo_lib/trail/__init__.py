"""The output model with GoldenGate trail semantics (shared/docs/trail-contract.md)."""
