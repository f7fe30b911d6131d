// FluxFeatures: under construction.
