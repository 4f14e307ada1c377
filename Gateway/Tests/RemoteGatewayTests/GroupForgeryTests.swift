import Testing

extension EndToEndTests {
    /// Group time against a forger on the broker: two members while another client answers
    /// every ask with crafted answers (the out-of-range payload that once crashed a gateway,
    /// extremes, answers seconds off, `sent_ns` before `received_ns`), a ghost reference and a
    /// low id that never takes the role, garbage and forged presences, session messages out of
    /// range and at the ranges' ends. Both gateways stay up with a bounded log, `/api/state`
    /// says synced again after each, and a START on one clock shows on the other. The seed is
    /// printed (`--seed` replays it).
    @Test func groupTimeWithAForgerOnTheBroker() async throws {
        let run = try await Self.check("sync_forgery_check.py")
        let lines = [
            "with received_ns Int64.max, sent_ns 0); member-1's gateway is up and logged that asks had two different answers",
            "ok: crafted answers: /api/state says one group time", "took a-ghost as gone",
            "ok: the ghost a-ghost and a-idle: /api/state says one group time",
            "ok: the members' own presences forged: /api/state says one group time",
            "ok: at the end: START on member-0 shown on the other member's display",
            "ok: member-0's log is bounded", "ok: member-1's log is bounded", "ok: both gateways and both clocks still running",
        ]
        for line in lines { #expect(run.stdout.contains(line), "missing: \(line)") }
        #expect(run.stdout.hasSuffix("sync forgery check: all passed\n"))
    }
}
