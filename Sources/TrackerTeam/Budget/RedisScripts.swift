import TrackerModel
import TrackerNetwork

/// The scripts tracker runs in a team's Redis. Each touches the keys of one hash tag, so one slot.
public enum RedisScripts {
    /// PaceSchedule (PaceSchedule.swift) on Redis's clock: the same windows, hold, slowdown, confirmation and slots
    /// that may arrive late (`time/spread`), one budget to a key. KEYS[1] the budget, KEYS[2] (optional) the set of
    /// processes seen; ARGV: "reserve", "confirm" or "hold", requests a second, hold seconds, the process's id, the
    /// horizon in seconds, for "confirm" the slot it was given, and how much later than it leaves the request may
    /// arrive. Answers {1 when the request may go now, else 0; the wait in microseconds; the slot held}.
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
        local spread = math.max(0, math.min(1, tonumber(ARGV[7]) or 0))
        local stored = redis.call('GET', KEYS[1])
        if stored then
          local header, slots, believable = {}, {}, true
          for word in string.gmatch(stored, '%S+') do
            if #header < 3 then
              local number = tonumber(word)
              if number == nil or number ~= number or number > now + horizon then believable = false end
              header[#header + 1] = number
            else
              local time, late = string.match(word, '^([^/]+)/?(.*)$')
              time, late = tonumber(time), (late == '' and 0) or tonumber(late)
              if time and late and time == time and late >= 0 and late <= 1 then
                if time + late > now + horizon then believable = false end
                slots[#slots + 1] = {time, late}
              end
            end
          end
          if believable and #header == 3 then
            hold, slowdown, resumed = header[1], math.max(1, header[2]), header[3]
            sent = slots
            table.sort(sent, function(x, y) return x[1] < y[1] end)
          end
        end
        local rate = tonumber(ARGV[2])
        local calm, recovery, given, kept, early = 30, 90, 1.09, 1.07, 0.002
        local function factor(at)
          if slowdown <= 1 then return 1 end
          local progress = math.min(1, math.max(0, at - resumed - calm) / recovery)
          return slowdown - (slowdown - 1) * progress
        end
        local function window(at, margin)
          local slower = factor(at)
          if slower > 1 then return 1, margin * slower / rate end
          local capacity = math.min(10, math.max(1, math.floor(rate)))
          return capacity, margin * capacity / rate
        end
        local widest = given * 10 / rate
        local function fits(time, margin)
          if time < hold then return false end
          local capacity, seconds = window(time, margin)
          local last = time + spread
          local near, starts = {}, {last}
          for _, slot in ipairs(sent) do
            local ending = slot[1] + slot[2]
            if ending > time - seconds and slot[1] < last + seconds then
              near[#near + 1] = slot
              if ending <= last then starts[#starts + 1] = ending end
            end
          end
          for _, start in ipairs(starts) do
            local inside = 1
            for _, slot in ipairs(near) do
              if slot[1] < start + seconds and slot[1] + slot[2] >= start then inside = inside + 1 end
            end
            if inside > capacity then return false end
          end
          return true
        end
        local function first_fit(from)
          local start = math.max(from, hold)
          if fits(start, given) then return start end
          local _, seconds = window(start, given)
          local reach = math.max(seconds, widest)
          local candidates = {}
          local latest = start
          for _, slot in ipairs(sent) do
            local ending = slot[1] + slot[2]
            latest = math.max(latest, ending)
            if ending + seconds > start then candidates[#candidates + 1] = ending + seconds end
            if ending + reach > start then candidates[#candidates + 1] = ending + reach end
          end
          table.sort(candidates)
          for _, candidate in ipairs(candidates) do
            if fits(candidate, given) then return candidate end
          end
          return math.max(start, latest + reach)
        end
        local function insert(slot)
          local at = #sent + 1
          for i, other in ipairs(sent) do
            if other[1] > slot then at = i break end
          end
          table.insert(sent, at, {slot, spread})
          while #sent > 1000 do table.remove(sent, 1) end
        end
        local function forget()
          local reach = math.max(given * math.min(10, math.max(1, math.floor(rate))) / rate, widest)
          local kept_slots = {}
          for _, slot in ipairs(sent) do
            if slot[1] + slot[2] > now - reach then kept_slots[#kept_slots + 1] = slot end
          end
          sent = kept_slots
        end
        local go, held = 0, now
        if ARGV[1] == 'reserve' then
          forget()
          held = first_fit(now)
          insert(held)
          if KEYS[2] then
            redis.call('ZADD', KEYS[2], now, ARGV[4])
            redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 60)
            redis.call('EXPIRE', KEYS[2], 120)
          end
        elseif ARGV[1] == 'confirm' then
          forget()
          local slot = tonumber(ARGV[6]) or now
          local index = nil
          for i, other in ipairs(sent) do
            if math.abs(other[1] - slot) < 0.000002 then index = i break end
          end
          if now < slot - early and index and sent[index][1] >= hold then
            held = sent[index][1]
          else
            if index then table.remove(sent, index) end
            local moment = math.max(now, math.min(slot, now + early))
            if fits(moment, kept) then
              held, go = moment, 1
            else
              held = first_fit(now)
            end
            insert(held)
          end
        else
          local resume = now + math.max(0, math.min(tonumber(ARGV[3]) or 0, horizon / 2))
          if resume > hold + 1 or slowdown <= 1 then
            slowdown = math.min(10, math.max(2.5, factor(now) * 2))
          end
          hold, resumed, sent = math.max(hold, resume), math.max(resumed, resume), {}
        end
        local words = {string.format('%.6f', hold), string.format('%.6f', slowdown), string.format('%.6f', resumed)}
        local last = hold
        for _, slot in ipairs(sent) do
          if slot[2] > 0 then
            words[#words + 1] = string.format('%.6f/%.6f', slot[1], slot[2])
          else
            words[#words + 1] = string.format('%.6f', slot[1])
          end
          last = math.max(last, slot[1] + slot[2])
        end
        if slowdown > 1 then last = math.max(last, resumed + calm + recovery) end
        redis.call('SET', KEYS[1], table.concat(words, ' '), 'PX', math.floor((last - now + 10) * 1000))
        return {go, math.floor((held - now) * 1000000 + 0.5), string.format('%.6f', held)}
        """#)

    /// A lock's lease renewed only by its holder: 1 when `ARGV[1]` still holds KEYS[1] (now for ARGV[2] ms more).
    public static let renew = RedisScript(
        #"""
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return 1
        end
        return 0
        """#)

    /// A lock let go only by its holder: 1 when `ARGV[1]` held KEYS[1] and it is gone.
    public static let release = RedisScript(
        #"""
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """#)
}
