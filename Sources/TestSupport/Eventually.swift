/// Polls `condition` every `step` until it holds or `limit` of real time has passed, and says
/// whether it held. The limit is generous (a loaded machine shares the cores with other
/// builds): it only matters when the test is failing. The one wait helper of the test suites.
public func eventually(
    within limit: Duration = .seconds(60), every step: Duration = .milliseconds(2), _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: limit)
    while clock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: step)
    }
    return condition()
}
