import Testing

/// All FluxLua suites nest here and run one test at a time: `LuaVM.interruptAll()` stops every VM of
/// the process, so its test must not overlap others.
@Suite(.serialized)
struct FluxLuaTests {}
