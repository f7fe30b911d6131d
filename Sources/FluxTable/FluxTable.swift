// FluxTable: under construction.
