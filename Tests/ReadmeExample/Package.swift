// swift-tools-version:6.0
import PackageDescription

// The README's Swift snippets built as an app builds them: against FluxShell's library products only.
let package = Package(
    name: "ReadmeExample",
    dependencies: [
        // Named: a path dependency's identity is its directory's name, which differs between checkouts.
        .package(name: "FluxShell", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "ReadmeExample", dependencies: [
            .product(name: "Flux", package: "FluxShell"),
            .product(name: "FluxTable", package: "FluxShell"),
            .product(name: "FluxViews", package: "FluxShell"),
            .product(name: "FluxShell", package: "FluxShell"),
        ]),
    ]
)
