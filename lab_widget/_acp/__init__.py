"""Any agent that speaks the Agent Client Protocol, as a provider over the seam."""
