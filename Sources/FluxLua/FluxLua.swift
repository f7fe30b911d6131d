// FluxLua: under construction.
