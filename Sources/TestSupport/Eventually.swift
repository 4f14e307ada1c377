/// Polls `condition` every `step` until it holds or `limit` has passed, and says whether it
/// held. The limit is generous (a loaded machine shares the cores with other builds): it only
/// matters when the test is failing. Only the time this waiter was awake for counts: a sleep
/// that overran by more than `overrun` (the test pool was busy with other tests, so whatever
/// the condition waits for may not have run either) counts as `step + overrun`. The one wait
/// helper of the test suites.
public func eventually(
    within limit: Duration = .seconds(60), every step: Duration = .milliseconds(2), _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let overrun = Duration.milliseconds(100)
    var left = limit
    while left > .zero {
        if condition() { return true }
        let before = clock.now
        try? await Task.sleep(for: step)
        left -= min(before.duration(to: clock.now), step + overrun)
    }
    return condition()
}
