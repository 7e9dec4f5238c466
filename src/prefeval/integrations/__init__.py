"""prefeval inside other tools: measures and provider for ir-measures, PyTerrier and ranx, optional extras."""
