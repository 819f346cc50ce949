import Foundation
import Testing

@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem

/// A slot is a promise made before a request sleeps; what reaches the base is when the request leaves. On a loaded
/// machine processes wake late, so each request confirms its slot right before it leaves.
@Suite(.timeLimit(.minutes(2)))
struct LateSendTests {
    /// The run the issue measured: five slots at once, the next five a window later, and the first window's last
    /// request woken 85 ms late. Sent anyway, it shares a second with the next window's five: six, and a lockout.
    @Test func aRequestWokenLateTakesANewSlotRatherThanCrowdTheNextWindow() {
        var schedule = PaceSchedule()
        let slots = (0..<10).map { _ in 100 + schedule.reserve(at: 100, requestsPerSecond: 5) }
        for slot in slots.prefix(4) { #expect(schedule.confirm(slot, at: slot, requestsPerSecond: 5).go) }
        let late = schedule.confirm(slots[4], at: 100.085, requestsPerSecond: 5)
        #expect(!late.go, "going now would put six in the second from 100.085")
        #expect(late.slot >= 101.05 + 1)
        for slot in slots.suffix(5) { #expect(schedule.confirm(slot, at: slot, requestsPerSecond: 5).go) }
        #expect(schedule.confirm(late.slot, at: late.slot, requestsPerSecond: 5).go)
    }

    /// A little late (10 ms, an idle machine's jitter) still goes at once: the floor is kept.
    @Test func aRequestALittleLateGoesAtOnce() {
        var schedule = PaceSchedule()
        let slots = (0..<10).map { _ in 100 + schedule.reserve(at: 100, requestsPerSecond: 5) }
        for slot in slots { #expect(schedule.confirm(slot, at: slot + 0.01, requestsPerSecond: 5).go) }
    }

    /// Woken early, a request waits for its own slot; a slot a 429 wiped is taken again after the hold.
    @Test func anEarlyRequestWaitsAndOneWhoseSlotALockoutWipedWaitsItOut() {
        var schedule = PaceSchedule()
        let slots = (0..<6).map { _ in 100 + schedule.reserve(at: 100, requestsPerSecond: 5) }
        let early = schedule.confirm(slots[5], at: 100.5, requestsPerSecond: 5)
        #expect(!early.go && early.slot == slots[5])
        schedule.rateLimited(at: 100.6, holdingFor: 30)
        let wiped = schedule.confirm(slots[5], at: slots[5], requestsPerSecond: 5)
        #expect(!wiped.go && wiped.slot >= 130.6, "sent at its old slot, it would have gone into the lockout")
    }

    /// Whatever the lateness (up to 150 ms, as a loaded machine makes it), the moments requests actually
    /// leave never put more than five in any second, with 20 ms to spare for what follows leaving. Without the
    /// confirmation (every request going when it wakes) this fails.
    @Test(arguments: [1, 2, 3, 4, 5])
    func onABusyMachineNoSecondEverHoldsSixSends(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var schedule = PaceSchedule()
        var pending: [(wake: Double, slot: Double)] = []
        var sends: [Double] = []
        // Eighteen processes of four requests each, all starting within 100 ms.
        for _ in 0..<72 {
            let asked = 100 + Double.random(in: 0..<0.1, using: &random)
            let slot = asked + schedule.reserve(at: asked, requestsPerSecond: 5)
            pending.append((slot + late(&random), slot))
        }
        var confirmations = 0
        while let next = pending.indices.min(by: { pending[$0].wake < pending[$1].wake }) {
            let (wake, slot) = pending.remove(at: next)
            let answer = schedule.confirm(slot, at: wake, requestsPerSecond: 5)
            confirmations += 1
            if answer.go { sends.append(wake) } else { pending.append((answer.slot + late(&random), answer.slot)) }
        }
        #expect(sends.count == 72)
        for send in sends {
            #expect(sends.filter { $0 >= send && $0 < send + 1.02 }.count <= 5, "six within a second of \(send)")
        }
        // Still close to the floor: 72 requests at five a second is 14.2 s.
        #expect(sends.max()! - 100 < 14.2 * 1.3, "took \(sends.max()! - 100) s, \(confirmations) confirmations")
    }

    /// How late a process wakes on a machine whose cores are busy: mostly a few ms, one time in ten up to 150 ms.
    private func late(_ random: inout SplitMix64) -> Double {
        Double.random(in: 0..<1, using: &random) < 0.9
            ? Double.random(in: 0..<0.005, using: &random) : Double.random(in: 0..<0.15, using: &random)
    }

    /// Two processes sharing a slot file: one woken late confirms through the file and is given a new slot, and the
    /// other's on-time slots are not crowded.
    @Test func aLateProcessConfirmsThroughTheSlotFile() throws {
        let (a, b, clock, directory) = twoProcessesSharingASlotFile()
        defer { withExtendedLifetime(directory) {} }
        let turns = (0..<10).map { [a, b][$0 % 2].reserveTurn(notBefore: 0, spread: 0) }
        // The first window's five confirm: four on time, one (b's) 85 ms late.
        for index in 0..<4 { #expect([a, b][index % 2].confirmTurn(turns[index]).wait <= 0) }
        clock.sleep(0.085)
        let late = b.confirmTurn(turns[4])
        #expect(late.wait > 1, "a new slot, after the next window's")
        clock.sleep(PaceSchedule.givenMargin - 0.085)
        for index in 5..<10 { #expect([a, b][index % 2].confirmTurn(turns[index]).wait <= 0) }
    }
}

/// A turn asked for later than now (after the slots a team's Redis gave) keeps the slots of this second: another
/// process asking now still finds the window full. Forgetting from the later moment dropped them and let a sixth in.
@Test func aTurnAskedForLaterForgetsNothingTheCurrentSecondHolds() {
    var schedule = PaceSchedule()
    for _ in 0..<5 { _ = schedule.reserve(at: 100, requestsPerSecond: 5) }
    _ = schedule.reserve(at: 100, requestsPerSecond: 5, notBefore: 110)
    #expect(schedule.reserve(at: 100.1, requestsPerSecond: 5) >= 0.95, "the sixth of this second waits for the next")
}
