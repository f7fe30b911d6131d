import FluxShell
