// swift-tools-version:6.0
import PackageDescription

// The module graph is the data flow (every target lists the modules it imports; ARCHITECTURE.md walks it):
//   Flux          → DequeModule, OpenCombine   actions, dispatcher, stores, history, action log
//   FluxTable                                   stands alone: table view models, diff, terminal renderer
//   FluxViews     → Flux, FluxTable            view providers over stores, their registry, watching a view
//   FluxFeatures  → Flux, FluxTable, FluxViews plain Swift an app could use
//   CFluxLua      → CLua                       the C side of the Lua bridge
//   FluxLua       → CFluxLua, CLua, Flux, FluxTable, FluxViews
//   FluxSession   → Flux, GRDB                 a session's stores, journal and undo history in SQLite
//   FluxShell     → CReadline, Flux, FluxTable, FluxViews, FluxLua, FluxFeatures, FluxSession, ArgumentParser
//   fluxsh        → FluxShell                  (only `main`)
//   CUV, CFluxLoop → libuv                     the event loop (Debian's libuv1-dev) and its handles in C
//   FluxEffects   → CFluxLoop                  timers, processes and file watches, owned and cancellable
//   flux-bench    → Flux, FluxTable, FluxLua, FluxFeatures, FluxSession
let package = Package(
    name: "FluxShell",
    products: [
        .library(name: "Flux", targets: ["Flux"]),
        .library(name: "FluxTable", targets: ["FluxTable"]),
        .library(name: "FluxViews", targets: ["FluxViews"]),
        .library(name: "FluxLua", targets: ["FluxLua"]),
        .library(name: "FluxFeatures", targets: ["FluxFeatures"]),
        .library(name: "FluxSession", targets: ["FluxSession"]),
        .library(name: "FluxShell", targets: ["FluxShell"]),
        .library(name: "FluxEffects", targets: ["FluxEffects"]),
        .executable(name: "fluxsh", targets: ["fluxsh"]),
        .executable(name: "flux-bench", targets: ["flux-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "Flux",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        .target(name: "FluxTable"),
        .target(name: "FluxViews", dependencies: ["Flux", "FluxTable"]),
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        .target(name: "CFluxLua", dependencies: ["CLua"]),
        .systemLibrary(
            name: "CUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        .target(name: "CFluxLoop", dependencies: ["CUV"], linkerSettings: [.linkedLibrary("uv")]),
        .target(name: "FluxEffects", dependencies: ["CFluxLoop"]),
        .target(name: "FluxLua", dependencies: ["CFluxLua", "CLua", "Flux", "FluxTable", "FluxViews", "FluxEffects"]),
        .target(name: "FluxFeatures", dependencies: ["Flux", "FluxTable", "FluxViews"]),
        .target(name: "FluxSession", dependencies: ["Flux", .product(name: "GRDB", package: "GRDB.swift")]),
        // terminfo (libtinfo) comes from Debian's libncurses-dev: the terminal's capabilities for `:open`.
        .systemLibrary(name: "CTerminfo", providers: [.apt(["libncurses-dev"])]),
        // Readline comes from Debian's libreadline-dev (scripts/lib/setup.sh installs it).
        .target(name: "CReadline", linkerSettings: [.linkedLibrary("readline")]),
        .target(
            name: "FluxShell",
            dependencies: [
                "CReadline", "Flux", "FluxTable", "FluxViews", "FluxLua", "FluxFeatures", "FluxSession", "FluxEffects", "CFluxLoop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "CTerminfo",
            ]
        ),
        .executableTarget(name: "fluxsh", dependencies: ["FluxShell"]),
        .executableTarget(name: "flux-bench", dependencies: ["Flux", "FluxLua", "FluxTable", "FluxFeatures", "FluxSession", "FluxEffects"]),
        .testTarget(name: "FluxTests", dependencies: ["Flux", .product(name: "OpenCombine", package: "OpenCombine")]),
        .testTarget(name: "FluxTableTests", dependencies: ["FluxTable"]),
        .testTarget(name: "FluxViewsTests", dependencies: ["FluxViews", "Flux", "FluxTable"]),
        .testTarget(name: "FluxLuaTests", dependencies: ["FluxLua", "CFluxLua", "CLua", "Flux", "FluxTable"]),
        .testTarget(name: "FluxFeaturesTests", dependencies: ["FluxFeatures", "Flux", "FluxTable", "FluxViews"]),
        .testTarget(name: "FluxSessionTests", dependencies: [
            "FluxSession", "Flux", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "FluxShellTests", dependencies: [
            "FluxShell", "fluxsh", "flux-bench", "CReadline", "Flux", "FluxLua", "FluxFeatures", "FluxTable", "FluxViews",
            .product(name: "GRDB", package: "GRDB.swift"),
            "FluxEffects",
        ]),
    ]
)
