// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Todos",
    dependencies: [
        // A path dependency is known by its folder's name ("FluxShell" here, but a clone may be named
        // otherwise): `name:` says which name `package:` below uses, whatever the folder is called.
        .package(name: "FluxShell", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "Todos", dependencies: [
            .product(name: "Flux", package: "FluxShell"),
            .product(name: "FluxTable", package: "FluxShell"),
            .product(name: "FluxViews", package: "FluxShell"),
            .product(name: "FluxShell", package: "FluxShell"),
        ]),
    ]
)
