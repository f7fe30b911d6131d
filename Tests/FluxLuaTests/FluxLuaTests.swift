import Testing

/// All FluxLua suites nest here and run one test at a time: the interrupt and hook specs arm timers on
/// other threads, and alone their timing holds on a loaded machine. (`LuaVM.interruptAll()`, which
/// would stop every VM of the test process, is specified through the shell in its own process.)
@Suite(.serialized)
struct FluxLuaTests {}
