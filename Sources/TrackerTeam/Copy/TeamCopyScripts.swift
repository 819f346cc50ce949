import TrackerNetwork

/// The scripts that change the team's copy in Redis, each atomic and each touching the keys of one base's hash tag.
///
/// A record is stored as `"<stamp> <order> <json>"`: the order is where it stands in the table's listing (a record
/// new to the copy goes last, as in a face's own copy; readers sort by it), and the stamp is the server's time (seconds since 1970) at which that version
/// was read, and a version older than the one stored is never written over it ("newer wins"). Airtable's records carry
/// no modification time, so the stamp is the stricter stand-in: a listing's records are stamped when it was sent, a
/// write's answer when it came back. A deletion leaves its stamp in the `gone` hash, so a listing sent before it
/// cannot bring the record back. Each table's count in the header moves with what the script adds and removes, never
/// set from the hash itself: a hash evicted or deleted behind tracker's back stays short of its count, and is seen.
enum TeamCopyScripts {
    /// The helpers every writing script shares: reading a stored stamp, putting one record, removing one.
    private static let common = #"""
        local function stored(value)
          if not value then return nil, nil end
          local stamp, seq = string.match(value, '^([%d%.]+) (%d+) ')
          return tonumber(stamp), tonumber(seq)
        end
        local function put(head, name, key, gone, id, stamp, json)
          local old = redis.call('HGET', key, id)
          local kept, seq = stored(old)
          if kept and kept > stamp then return 0 end
          -- A deletion stamped the same millisecond as a version wins: a record is never brought back by a tie.
          local deleted = tonumber(redis.call('HGET', gone, id) or '')
          if deleted and deleted >= stamp then return 0 end
          -- A record new to the copy goes after every other, as in a face's own copy.
          seq = seq or redis.call('HINCRBY', head, 'seq:' .. name, 1)
          redis.call('HSET', key, id, string.format('%.3f', stamp) .. ' ' .. seq .. ' ' .. json)
          if old then return 0 end
          return 1
        end
        local function remove(key, gone, id, stamp)
          redis.call('HSET', gone, id, string.format('%.3f', stamp))
          return redis.call('HDEL', key, id)
        end
        local function sound(head, keys, names)
          for i = 1, #names do
            local counted = tonumber(redis.call('HGET', head, 'count:' .. names[i]) or '')
            if counted == nil or redis.call('HLEN', keys[i]) ~= counted then return false end
          end
          return true
        end
        -- Tells the readers what changed. `polled`: the poller's refresh, which alone says how fresh the copy is
        -- (`applied`); a write's answer changes records, never the copy's age. An entry never holds more than a reader
        -- reads in one value: past 256 KiB of ids it says `reload` (readers load the copy again from Redis).
        local function tell(head, news, fields, polled)
          local version = redis.call('HINCRBY', head, 'version', 1)
          if polled then
            local clock = redis.call('TIME')
            redis.call('HSET', head, 'applied', clock[1] .. '.' .. string.format('%06d', tonumber(clock[2])))
          end
          local entry = {'v', tostring(version), 'g', redis.call('HGET', head, 'generation') or ''}
          local size = 0
          for i = 2, #fields, 2 do size = size + #fields[i] end
          if size > 262144 then fields = {'reload', '1'} end
          for _, field in ipairs(fields) do entry[#entry + 1] = field end
          local id = redis.call('XADD', news, 'MAXLEN', '~', '1000', '*', unpack(entry))
          redis.call('HSET', head, 'news', id)
          return version
        end
        -- Whether the news key is a stream or not there: anything else is junk, and the copy is made again.
        local function streamable(news)
          local kind = redis.call('TYPE', news)['ok']
          return kind == 'stream' or kind == 'none'
        end
        local function keep(keys)
          for _, key in ipairs(keys) do redis.call('PEXPIRE', key, 604800000) end
        end
        -- The header's fields from the poller, with the "done lately" answers it no longer gives removed (one a day
        -- would pile up, and every reader reads them).
        local function header(head, at, count)
          local given = {}
          for i = 0, count - 1 do
            redis.call('HSET', head, ARGV[at + 2 * i], ARGV[at + 1 + 2 * i])
            given[ARGV[at + 2 * i]] = true
          end
          for _, field in ipairs(redis.call('HKEYS', head)) do
            if string.sub(field, 1, 5) == 'done:' and not given[field] then redis.call('HDEL', head, field) end
          end
        end
        -- A deletion's stamp only has to outlive the listings sent before it (a round, with its margin): stamps over
        -- an hour older than `stamp` go once the hash holds 1,000.
        local function forget(gone, stamp)
          if redis.call('HLEN', gone) < 1000 then return end
          local all = redis.call('HGETALL', gone)
          for i = 1, #all, 2 do
            if (tonumber(all[i + 1]) or 0) < stamp - 3600 then redis.call('HDEL', gone, all[i]) end
          end
        end
        -- Applies ARGV from `at`: for each table, m then m (id, json), d then d ids. Returns the next position and the
        -- news fields (ids changed and gone by table).
        local function apply(at, stamp, head, keys, gone, names)
          local fields = {}
          for i = 1, #names do
            local m = tonumber(ARGV[at]); at = at + 1
            local changed, added = {}, 0
            for _ = 1, m do
              added = added + put(head, names[i], keys[i], gone, ARGV[at], stamp, ARGV[at + 1])
              changed[#changed + 1] = ARGV[at]
              at = at + 2
            end
            local d = tonumber(ARGV[at]); at = at + 1
            local removed, dropped = {}, 0
            for _ = 1, d do
              dropped = dropped + remove(keys[i], gone, ARGV[at], stamp)
              removed[#removed + 1] = ARGV[at]
              at = at + 1
            end
            redis.call('HINCRBY', head, 'count:' .. names[i], added - dropped)
            fields[#fields + 1] = 'c:' .. names[i]; fields[#fields + 1] = table.concat(changed, ' ')
            fields[#fields + 1] = 'd:' .. names[i]; fields[#fields + 1] = table.concat(removed, ' ')
          end
          local counts = {}
          for i = 1, #names do counts[#counts + 1] = names[i] .. ':' .. redis.call('HGET', head, 'count:' .. names[i]) end
          fields[#fields + 1] = 'n'; fields[#fields + 1] = table.concat(counts, ' ')
          return at, fields
        end
        """#

    /// A poller's refresh: refused unless KEYS[1] (the lease) still holds ARGV[1] (the poller's token) and the copy is
    /// the generation ARGV[3], at least the version ARGV[4] (the last the poller saw: a Redis restarted from an older
    /// dump went back in time), sound, and not distrusted by a reader (a value in it that is not a record). KEYS:
    /// lease, head, gone, news, then each table's hash. ARGV: token, stamp, generation, version, the tables' names
    /// (space-separated), header pairs (count, then pairs), then the tables' changes. Answers {1, version}, or
    /// {0, "lease"} (not the poller's any more), {0, "broken"} or {0, "behind"} (read whole again).
    static let refresh = RedisScript(
        common + "\n" + #"""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0, 'lease'} end
            local head, gone, news = KEYS[2], KEYS[3], KEYS[4]
            local keys, names = {}, {}
            for name in string.gmatch(ARGV[5], '%S+') do names[#names + 1] = name; keys[#keys + 1] = KEYS[4 + #names] end
            local generation = redis.call('HGET', head, 'generation')
            if generation ~= ARGV[3] or redis.call('HGET', head, 'distrusted') == generation
              or not sound(head, keys, names) then
              return {0, 'broken'}
            end
            if not streamable(news) then return {0, 'broken'} end
            if (tonumber(redis.call('HGET', head, 'version') or '') or 0) < tonumber(ARGV[4]) then
              return {0, 'behind'}
            end
            local pairs_count = tonumber(ARGV[6])
            header(head, 7, pairs_count)
            local stamp = tonumber(ARGV[2])
            local at, fields = apply(7 + 2 * pairs_count, stamp, head, keys, gone, names)
            forget(gone, stamp)
            local version = tell(head, news, fields, true)
            local all = {KEYS[2], KEYS[3], KEYS[4]}
            for _, key in ipairs(keys) do all[#all + 1] = key end
            keep(all)
            return {1, version}
            """#)

    /// A write's answer, from any process: put in at once, newer wins, unless the copy is missing or unsound (a write
    /// must not make a short copy look whole); the copy's age and its keys' lives are the poller's alone. KEYS: head, gone, news, the table's hash. ARGV: stamp, the table's name,
    /// then its changes. Answers 1 when applied.
    static let heard = RedisScript(
        common + "\n" + #"""
            local head, gone, news = KEYS[1], KEYS[2], KEYS[3]
            local keys, names = {KEYS[4]}, {ARGV[2]}
            if redis.call('EXISTS', head) == 0 or not sound(head, keys, names) or not streamable(news) then return 0 end
            local at, fields = apply(3, tonumber(ARGV[1]), head, keys, gone, names)
            -- Neither the copy's age nor its keys' lives move: a copy nobody polls is not kept alive by writes.
            tell(head, news, fields, false)
            return 1
            """#)

    /// A whole read, staged under keys of its own, made the copy at once: refused unless the lease holds ARGV[1] and
    /// every staged table holds the count read. KEYS: lease, head, gone, news, then each table's hash and its stage.
    /// ARGV: token, generation, the tables' names, their counts (space-separated), header pairs (count, then pairs).
    static let rebuild = RedisScript(
        common + "\n" + #"""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0, 'lease'} end
            local head, gone, news = KEYS[2], KEYS[3], KEYS[4]
            local names, counts = {}, {}
            for name in string.gmatch(ARGV[3], '%S+') do names[#names + 1] = name end
            for count in string.gmatch(ARGV[4], '%S+') do counts[#counts + 1] = tonumber(count) end
            for i = 1, #names do
              local staged = KEYS[4 + 2 * i]
              if redis.call('HLEN', staged) ~= counts[i] then return {0, 'short'} end
            end
            local version = tonumber(redis.call('HGET', head, 'version') or '0') or 0
            redis.call('DEL', head, gone)
            if not streamable(news) then redis.call('DEL', news) end
            local all = {head, news}
            for i = 1, #names do
              local live, staged = KEYS[3 + 2 * i], KEYS[4 + 2 * i]
              redis.call('DEL', live)
              if counts[i] > 0 then redis.call('RENAME', staged, live) end
              redis.call('HSET', head, 'count:' .. names[i], counts[i], 'seq:' .. names[i], counts[i])
              all[#all + 1] = live
            end
            redis.call('HSET', head, 'generation', ARGV[2], 'version', version)
            header(head, 6, tonumber(ARGV[5]))
            local n = {}
            for i = 1, #names do n[#n + 1] = names[i] .. ':' .. counts[i] end
            tell(head, news, {'whole', '1', 'n', table.concat(n, ' ')}, true)
            keep(all)
            return {1, version + 1}
            """#)

    /// The first page of a whole read, kept a short while for readers waiting for the copy to draw a first screen;
    /// fenced by the lease, so a poller frozen past it cannot show an old one.
    static let firstPage = RedisScript(
        #"""
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
        return 1
        """#)
}
