import TrackerModel

/// A Lua script and the digest Redis knows it by.
public struct RedisScript: Sendable {
    public let text: String
    public let digest: String

    init(_ text: String) {
        self.text = text
        digest = Digest.sha1Hex(text)
    }
}

/// The scripts tracker runs in a team's Redis. Each touches the keys of one hash tag, so one slot.
enum RedisScripts {
    /// PaceSchedule (RequestPacer.swift) on Redis's clock: the same window, hold and slowdown, one budget to a key.
    /// KEYS[1] the budget, KEYS[2] (optional) the set of processes seen; ARGV: "reserve" or "hold", requests a
    /// second, hold seconds, the process's id, the horizon in seconds. Answers the wait in microseconds.
    ///
    /// A stored schedule with any time further ahead than the horizon is discarded, not obeyed: tracker never writes
    /// one (a hold is at most `PaceSchedule.longestHold`), so it was left by a hand's mistake or by a Redis whose clock
    /// stepped back after a failover, and every machine would otherwise wait on it.
    static let budget = RedisScript(
        #"""
        pcall(redis.replicate_commands)
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
        local hold, slowdown, resumed, sent = 0, 1, 0, {}
        local horizon = tonumber(ARGV[5]) or 600
        local stored = redis.call('GET', KEYS[1])
        if stored then
          local numbers, believable = {}, true
          for word in string.gmatch(stored, '%S+') do
            local number = tonumber(word)
            if number == nil or number ~= number or number > now + horizon then believable = false end
            numbers[#numbers + 1] = number
          end
          if believable and #numbers >= 3 then
            hold, slowdown, resumed = numbers[1], math.max(1, numbers[2]), numbers[3]
            for i = 4, #numbers do sent[#sent + 1] = numbers[i] end
          end
        end
        local rate = tonumber(ARGV[2])
        local calm, recovery = 30, 90
        local function factor(at)
          if slowdown <= 1 then return 1 end
          local progress = math.min(1, math.max(0, at - resumed - calm) / recovery)
          return slowdown - (slowdown - 1) * progress
        end
        local wait = 0
        if ARGV[1] == 'reserve' then
          local capacity = math.min(10, math.max(1, math.floor(rate)))
          local window = 1.05 * capacity / rate
          local slot = math.max(now, hold, sent[#sent] or 0)
          local slower = factor(slot)
          if slower > 1 then capacity, window = 1, 1.05 * slower / rate end
          if #sent >= capacity then slot = math.max(slot, sent[#sent - capacity + 1] + window) end
          sent[#sent + 1] = slot
          while #sent > 10 do table.remove(sent, 1) end
          wait = math.floor((slot - now) * 1000000 + 0.5)
          if KEYS[2] then
            redis.call('ZADD', KEYS[2], now, ARGV[4])
            redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 60)
            redis.call('EXPIRE', KEYS[2], 120)
          end
        else
          local resume = now + math.max(0, math.min(tonumber(ARGV[3]) or 0, horizon / 2))
          if resume > hold + 1 or slowdown <= 1 then
            slowdown = math.min(10, math.max(2.5, factor(now) * 2))
          end
          hold, resumed, sent = math.max(hold, resume), math.max(resumed, resume), {}
        end
        local words = {string.format('%.6f', hold), string.format('%.6f', slowdown), string.format('%.6f', resumed)}
        for _, slot in ipairs(sent) do words[#words + 1] = string.format('%.6f', slot) end
        local last = math.max(hold, sent[#sent] or 0)
        if slowdown > 1 then last = math.max(last, resumed + calm + recovery) end
        redis.call('SET', KEYS[1], table.concat(words, ' '), 'PX', math.floor((last - now + 10) * 1000))
        return wait
        """#)

    /// A lock's lease renewed only by its holder: 1 when `ARGV[1]` still holds KEYS[1] (now for ARGV[2] ms more).
    static let renew = RedisScript(
        #"""
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return 1
        end
        return 0
        """#)

    /// A lock let go only by its holder: 1 when `ARGV[1]` held KEYS[1] and it is gone.
    static let release = RedisScript(
        #"""
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """#)
}
