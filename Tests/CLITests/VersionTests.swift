import Testing

/// `roundclock --version`: a Debian package build prints debian/changelog's version
/// (scripts/build-deb.sh and debian/rules check that); every other build, like this test's,
/// says it is a development build rather than claim a package version.
struct VersionTests {
    @Test func developmentBuildSaysSo() async throws {
        let run = try await CLIRun.run(["--version"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "0.1.0 (development build)\n")
        #expect(run.stderr.isEmpty)
    }
}
