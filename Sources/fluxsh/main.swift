import FluxShell

Fluxsh.main()
