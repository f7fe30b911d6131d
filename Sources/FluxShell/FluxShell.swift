// FluxShell: under construction.
