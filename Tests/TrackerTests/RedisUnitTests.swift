import Foundation
import Testing

@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(1)))
struct RESPTests {
    /// Eviction is told from `INFO memory`: any policy but noeviction under a memory limit may take tracker's keys.
    @Test func aRedisMayEvictTrackersKeysOnlyUnderALimitAndAPolicyThatEvicts() {
        func policy(_ limit: Int, _ name: String) -> String? {
            TeamCoordination.Health.evictionPolicy(
                fromInfo: "# Memory\r\nused_memory:1000\r\nmaxmemory:\(limit)\r\nmaxmemory_policy:\(name)\r\n")
        }
        #expect(policy(0, "allkeys-lru") == nil)
        #expect(policy(104_857_600, "noeviction") == nil)
        #expect(policy(104_857_600, "allkeys-lru") == "allkeys-lru")
        #expect(policy(104_857_600, "volatile-ttl") == "volatile-ttl", "tracker's keys expire: volatile-* takes them")
        #expect(TeamCoordination.Health.evictionPolicy(fromInfo: "") == nil)
    }

    /// A script's failure says what went wrong, not where in tracker's script (Redis 7's and Redis 6's wordings).
    @Test func aScriptsErrorIsSaidWithoutItsPlaceInTheScript() {
        let wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
        #expect(
            RedisConnection.classify(wrongType + " script: 5b1e8f0c2a, on @user_script:90.")
                == .replied(wrongType))
        #expect(
            RedisConnection.classify("ERR Error running script (call to f_5b1e8f): @user_script:90: " + wrongType)
                == .replied(wrongType))
        #expect(RedisConnection.classify("OOM command not allowed") == .replied("OOM command not allowed"))
    }

    /// A Redis busy with a script or loading its dump is out of reach for now, not a copy to make again.
    @Test func aRedisThatCannotAnswerNowIsOutOfReachForNow() {
        #expect(RedisConnection.classify("BUSY Redis is busy") == .unreachable("BUSY Redis is busy"))
        #expect(
            RedisConnection.classify("LOADING Redis is loading the dataset in memory")
                == .unreachable("LOADING Redis is loading the dataset in memory"))
    }

    @Test func aCommandIsAnArrayOfBulkStringsWhateverItsBytes() {
        let bytes = RESP.command(["SET", "k", "a b\r\n€"])
        #expect(String(decoding: bytes, as: UTF8.self) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$8\r\na b\r\n€\r\n")
    }

    @Test func answersAreReadWholeOrNotAtAll() throws {
        let text = Array("+OK\r\n-ERR no\r\n:42\r\n$-1\r\n$5\r\nhe\r\nl\r\n*2\r\n:1\r\n$1\r\nx\r\n*-1\r\n".utf8)
        var values: [RESPValue] = []
        var position = 0
        while let (value, next) = try RESP.parse(text, from: position) {
            values.append(value)
            position = next
        }
        #expect(
            values == [
                .simple("OK"), .error("ERR no"), .integer(42), .bulk(nil), .bulk(Array("he\r\nl".utf8)),
                .array([.integer(1), .bulk([UInt8(ascii: "x")])]), .array(nil),
            ])
        // Every prefix short of a whole value is "more bytes needed", never a wrong value.
        let whole = Array("*2\r\n$5\r\nhello\r\n:7\r\n".utf8)
        for cut in 0..<whole.count { #expect(try RESP.parse(Array(whole[0..<cut])) == nil) }
        #expect(throws: RESP.Malformed.self) { try RESP.parse(Array("?what\r\n".utf8)) }
        #expect(throws: RESP.Malformed.self) { try RESP.parse(Array("$abc\r\n".utf8)) }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RedisAddressTests {
    @Test func addressesOfEveryForm() throws {
        let plain = try RedisAddress.parse("redis://cache.internal").get()
        #expect(plain.place == .tcp(host: "cache.internal", port: 6379, tls: false))
        #expect(plain.password == nil && plain.database == 0)
        let full = try RedisAddress.parse("rediss://ops:p%40ss:word@10.0.0.5:6380/2").get()
        #expect(full.place == .tcp(host: "10.0.0.5", port: 6380, tls: true))
        #expect(full.user == "ops" && full.password == "p@ss:word" && full.database == 2)
        let passwordOnly = try RedisAddress.parse("redis://:secret@localhost:7000").get()
        #expect(passwordOnly.user == nil && passwordOnly.password == "secret")
        let ipv6 = try RedisAddress.parse("redis://[::1]:6390").get()
        #expect(ipv6.place == .tcp(host: "::1", port: 6390, tls: false))
        #expect(ipv6.display == "redis://[::1]:6390")
        let socket = try RedisAddress.parse("unix://:pw@/run/redis/redis.sock?db=3").get()
        #expect(socket.place == .unix(path: "/run/redis/redis.sock") && socket.database == 3 && socket.password == "pw")
        #expect(socket.curlTarget.unixPath == "/run/redis/redis.sock")
        #expect(full.curlTarget.url == "https://10.0.0.5:6380/")
    }

    /// A Redis without TLS is offered to the plain socket (which takes numeric addresses and socket paths, and leaves
    /// host names to libcurl, whose resolver keeps to the time limit); TLS goes to libcurl.
    @Test func onlyAddressesWithoutTLSAreOfferedToThePlainSocket() throws {
        func target(_ text: String) throws -> String? {
            try RedisAddress.parse(text).get().plainSocketTarget.map {
                "\($0.host ?? "-") \($0.port) \($0.path ?? "-")"
            }
        }
        #expect(try target("redis://127.0.0.1:6390") == "127.0.0.1 6390 -")
        #expect(try target("redis://[::1]:6390") == "::1 6390 -")
        #expect(try target("unix:///run/redis.sock") == "- 0 /run/redis.sock")
        #expect(try target("rediss://127.0.0.1:6390") == nil)
        #expect(try target("redis://localhost:6390") == "localhost 6390 -")
        #expect(try target("rediss://cache.internal") == nil)
    }

    @Test func theDisplayNeverHoldsTheUserOrThePassword() throws {
        let address = try RedisAddress.parse("rediss://ops:hunter2-secret@cache:6380/1").get()
        #expect(address.display == "rediss://cache:6380")
        #expect(!address.display.contains("hunter2") && !address.display.contains("ops"))
    }

    @Test func wrongAddressesSayWhyWithoutRepeatingThem() {
        for text in [
            "http://cache:6379", "redis://:pw@", "redis://host:99999", "redis://host/x", "unix://relative.sock",
        ] {
            guard case .failure(let invalid) = RedisAddress.parse(text) else {
                Issue.record("\(text) was taken")
                continue
            }
            #expect(!invalid.reason.contains(text))
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct DigestTests {
    @Test func knownAnswers() {
        #expect(Digest.sha1Hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Digest.sha1Hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(
            Digest.hex(Digest.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Two blocks: 56 bytes of message need a second block for the length.
        let long = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(
            Digest.hex(Digest.sha256(Array(long.utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // RFC 4231, test case 2.
        #expect(
            Digest.hmacSHA256Hex(key: "Jefe", "what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct TeamKeysTests {
    static let owner = BudgetOwner(
        endpoint: URL(string: "https://api.airtable.com")!, baseID: "appABCDEFGHIJKLMN",
        token: "fake-token-for-the-keys-test-A",
        requestsPerSecond: 5)

    @Test func keysAreHashTaggedByBaseAndHoldNoSecretOrName() {
        let keys = TeamCoordination.Keys(Self.owner)
        #expect(keys.budget.hasPrefix("tracker:{appABCDEFGHIJKLMN}:budget:"))
        #expect(keys.seen.hasPrefix("tracker:{appABCDEFGHIJKLMN}:seen:"))
        #expect(keys.tokenBudget.hasPrefix("tracker:{token-"))
        for key in [keys.budget, keys.seen, keys.tokenBudget] {
            #expect(!key.contains("fake-token") && !key.contains("test-A"))
        }
        let lock = TeamCoordination.Keys.lock(["add", "Design projects", "Weekly review"], baseID: "appABCDEFGHIJKLMN")
        #expect(lock.hasPrefix("tracker:{appABCDEFGHIJKLMN}:lock:"))
        #expect(!lock.contains("Weekly") && !lock.contains("Design"))
        #expect(
            lock
                != TeamCoordination.Keys.lock(["add", "Design projects", "Weekly Review"], baseID: "appABCDEFGHIJKLMN"))
    }

    @Test func anotherTokenIsAnotherBudgetAndTheScriptsDigestIsRedises() {
        var other = Self.owner
        other.token = "fake-token-for-the-keys-test-B"
        #expect(TeamCoordination.Keys(other).tokenBudget != TeamCoordination.Keys(Self.owner).tokenBudget)
        #expect(RedisScripts.budget.digest == Digest.sha1Hex(RedisScripts.budget.text))
    }
}

@Suite(.timeLimit(.minutes(1)))
struct RESPBoundsTests {
    /// A hostile reply nested 400,000 deep crashed the reader (it recursed without a bound); now it is malformed.
    @Test func nestingDeeperThanAFewLevelsIsMalformedNotACrash() throws {
        let deep = Array(String(repeating: "*1\r\n", count: 400_000).utf8) + Array(":1\r\n".utf8)
        #expect(throws: RESP.Malformed.self) { try RESP.parse(deep) }
        // A cluster's slot map (three levels) still reads.
        let slots = Array("*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n".utf8)
        let (value, _) = try #require(try RESP.parse(slots))
        guard case .array(let ranges?) = value, case .array(let range?) = ranges.first else {
            Issue.record("the slot map did not read as arrays")
            return
        }
        #expect(range.count == 3)
        // A stream's entries (XREAD: streams, a stream, its entries, an entry, its fields) are five levels, and read.
        let entries = Array("*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nv\r\n$1\r\n1\r\n".utf8)
        #expect(try RESP.parse(entries) != nil)
        let sixDeep = Array("*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n".utf8)
        #expect(throws: RESP.Malformed.self) { try RESP.parse(sixDeep) }
    }

    @Test func aBulkOverSixteenMebibytesOrAnEndlessLineIsMalformed() throws {
        #expect(throws: RESP.Malformed.self) { try RESP.parse(Array("$536870911\r\n".utf8)) }
        #expect(throws: RESP.Malformed.self) { try RESP.parse(Array("$16777217\r\n".utf8)) }
        // Sixteen mebibytes itself is allowed (more bytes needed, not malformed).
        #expect(try RESP.parse(Array("$16777216\r\nabc".utf8)) == nil)
        #expect(throws: RESP.Malformed.self) {
            try RESP.parse(Array(("+" + String(repeating: "x", count: 70_000)).utf8))
        }
        #expect(throws: RESP.Malformed.self) { try RESP.parse(Array("*70000\r\n".utf8)) }
    }
}
