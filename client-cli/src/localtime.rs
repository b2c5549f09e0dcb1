//! The local time of an instant, for showing deadlines: the offset from
//! UTC read from the system's time zone (`TZ`, else `/etc/localtime`),
//! with no unsafe call into the C library. Reads the TZif format's 64-bit
//! transitions and its footer rule (RFC 8536); anything it cannot read
//! means UTC, which is never wrong about the instant, only its display.

use std::path::PathBuf;

/// Where the system keeps its zone files.
const ZONEINFO: &str = "/usr/share/zoneinfo";

/// Largest zone file read: real ones are a few KiB.
const MAX_TZIF_BYTES: u64 = 256 * 1024;

/// A time zone: offsets from UTC in seconds, and their abbreviations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Zone {
    /// Transitions: from this instant (Unix seconds), this offset and name.
    transitions: Vec<(i64, i32, String)>,
    /// Before the first transition.
    initial: (i32, String),
    /// After the last transition (the footer), if the file has one.
    rule: Option<Rule>,
}

impl Zone {
    /// UTC.
    pub fn utc() -> Zone {
        Zone {
            initial: (0, "UTC".into()),
            ..Zone::default()
        }
    }

    /// The system's zone, or UTC when it cannot be read.
    pub fn system() -> Zone {
        let tz = std::env::var("TZ").ok().filter(|t| !t.is_empty());
        if let Some(rule) = tz.as_deref().and_then(Rule::parse) {
            return Zone {
                rule: Some(rule),
                ..Zone::utc()
            };
        }
        let path = match tz {
            Some(name) => {
                let name = name.trim_start_matches(':');
                if name.starts_with('/') {
                    PathBuf::from(name)
                } else {
                    PathBuf::from(ZONEINFO).join(name)
                }
            }
            None => PathBuf::from("/etc/localtime"),
        };
        read_file(&path)
            .and_then(|b| Zone::from_tzif(&b))
            .unwrap_or_else(Zone::utc)
    }

    /// A zone from the bytes of a TZif file (version 2 or later).
    pub fn from_tzif(bytes: &[u8]) -> Option<Zone> {
        let (v1, rest) = header(bytes)?;
        if bytes.get(4).copied()? < b'2' {
            return None;
        }
        // Skip the 32-bit block: the 64-bit one follows with its own header.
        let second = rest.get(v1.data_len(4)?..)?;
        let (h, data) = header(second)?;
        let mut at = 0;
        let mut take = |n: usize| {
            let s = data.get(at..at + n);
            at += n;
            s
        };
        let times: Vec<i64> = (0..h.timecnt)
            .map(|_| take(8).map(|b| i64::from_be_bytes(b.try_into().unwrap_or([0; 8]))))
            .collect::<Option<_>>()?;
        let indices: Vec<u8> = take(h.timecnt)?.to_vec();
        let types: Vec<(i32, usize)> = (0..h.typecnt)
            .map(|_| {
                take(6).map(|b| {
                    let off = i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                    (off, usize::from(b[5]))
                })
            })
            .collect::<Option<_>>()?;
        let chars = take(h.charcnt)?;
        let name = |i: usize| -> String {
            let s = chars.get(i..).unwrap_or_default();
            let end = s.iter().position(|c| *c == 0).unwrap_or(s.len());
            String::from_utf8_lossy(&s[..end]).into_owned()
        };
        let kind = |i: usize| types.get(i).map(|(off, n)| (*off, name(*n)));
        let transitions = times
            .iter()
            .zip(&indices)
            .map(|(t, i)| kind(usize::from(*i)).map(|(o, n)| (*t, o, n)))
            .collect::<Option<_>>()?;
        let footer_start = at + h.leapcnt * 12 + h.isstdcnt + h.isutcnt;
        let footer = data.get(footer_start..).unwrap_or_default();
        let footer = String::from_utf8_lossy(footer);
        Some(Zone {
            transitions,
            initial: kind(0)?,
            rule: Rule::parse(footer.trim_matches('\n')),
        })
    }

    /// The offset (seconds east of UTC) and abbreviation at instant `t`.
    pub fn at(&self, t: i64) -> (i32, String) {
        let after_last = self.transitions.last().is_none_or(|(last, ..)| t >= *last);
        if after_last {
            if let Some(rule) = &self.rule {
                return rule.at(t);
            }
        }
        match self.transitions.iter().rev().find(|(from, ..)| *from <= t) {
            Some((_, off, name)) => (*off, name.clone()),
            None => self.initial.clone(),
        }
    }

    /// `YYYY-MM-DD HH:MM ABBR` for instant `t` (Unix seconds).
    pub fn format(&self, t: i64) -> String {
        let (off, name) = self.at(t);
        let local = t + i64::from(off);
        let (y, m, d) = civil(local.div_euclid(86_400));
        let secs = local.rem_euclid(86_400);
        format!(
            "{y:04}-{m:02}-{d:02} {:02}:{:02} {name}",
            secs / 3600,
            secs / 60 % 60
        )
    }
}

fn read_file(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_TZIF_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

/// A TZif header's counts.
struct Counts {
    isutcnt: usize,
    isstdcnt: usize,
    leapcnt: usize,
    timecnt: usize,
    typecnt: usize,
    charcnt: usize,
}

impl Counts {
    /// Bytes of the data block that follows, with times `time` bytes wide.
    fn data_len(&self, time: usize) -> Option<usize> {
        Some(
            self.timecnt * (time + 1)
                + self.typecnt * 6
                + self.charcnt
                + self.leapcnt * (time + 4)
                + self.isstdcnt
                + self.isutcnt,
        )
    }
}

/// The header at the start of `b`, and the bytes after it.
fn header(b: &[u8]) -> Option<(Counts, &[u8])> {
    if b.get(..4)? != b"TZif" {
        return None;
    }
    let n = |i: usize| -> Option<usize> {
        let s = b.get(20 + 4 * i..24 + 4 * i)?;
        usize::try_from(u32::from_be_bytes(s.try_into().ok()?)).ok()
    };
    let counts = Counts {
        isutcnt: n(0)?,
        isstdcnt: n(1)?,
        leapcnt: n(2)?,
        timecnt: n(3)?,
        typecnt: n(4)?,
        charcnt: n(5)?,
    };
    Some((counts, b.get(44..)?))
}

/// A POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`): standard time, and
/// perhaps daylight time between two dates each year.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    std: (i32, String),
    dst: Option<Dst>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Dst {
    offset: i32,
    name: String,
    start: (Date, i32),
    end: (Date, i32),
}

/// When in the year a change happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Date {
    /// `Mm.w.d`: day `d` (0 Sunday) of week `w` (5: the last) of month `m`.
    Month(u8, u8, u8),
    /// `Jn`: day `n` of 1 to 365, February 29 never counted.
    Julian(u16),
    /// `n`: day `n` of 0 to 365, February 29 counted.
    Day(u16),
}

impl Rule {
    /// Parses a rule; `None` for anything else (a zone name).
    pub fn parse(s: &str) -> Option<Rule> {
        let mut p = Parser { s: s.as_bytes() };
        let std_name = p.name()?;
        let std_off = -p.offset()?;
        if p.s.is_empty() {
            return Some(Rule {
                std: (std_off, std_name),
                dst: None,
            });
        }
        let dst_name = p.name()?;
        let dst_off = if p.s.first() == Some(&b',') {
            std_off + 3600
        } else {
            -p.offset()?
        };
        p.eat(b',')?;
        let start = p.change()?;
        p.eat(b',')?;
        let end = p.change()?;
        if !p.s.is_empty() {
            return None;
        }
        Some(Rule {
            std: (std_off, std_name),
            dst: Some(Dst {
                offset: dst_off,
                name: dst_name,
                start,
                end,
            }),
        })
    }

    fn at(&self, t: i64) -> (i32, String) {
        let Some(dst) = &self.dst else {
            return self.std.clone();
        };
        let year = civil((t + i64::from(self.std.0)).div_euclid(86_400)).0;
        // Both changes are given in the local time in force before them.
        let start = instant(year, dst.start.0, dst.start.1) - i64::from(self.std.0);
        let end = instant(year, dst.end.0, dst.end.1) - i64::from(dst.offset);
        let summer = if start < end {
            start <= t && t < end
        } else {
            t < end || t >= start
        };
        if summer {
            (dst.offset, dst.name.clone())
        } else {
            self.std.clone()
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
}

impl Parser<'_> {
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.s.first() == Some(&c)).then(|| self.s = &self.s[1..])
    }

    fn name(&mut self) -> Option<String> {
        let (name, rest) = if self.eat(b'<').is_some() {
            let end = self.s.iter().position(|c| *c == b'>')?;
            (&self.s[..end], &self.s[end + 1..])
        } else {
            let end = self
                .s
                .iter()
                .position(|c| !c.is_ascii_alphabetic())
                .unwrap_or(self.s.len());
            (&self.s[..end], &self.s[end..])
        };
        if name.len() < 3 {
            return None;
        }
        self.s = rest;
        Some(String::from_utf8_lossy(name).into_owned())
    }

    fn number(&mut self) -> Option<i32> {
        let end = self
            .s
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(self.s.len());
        if end == 0 || end > 3 {
            return None;
        }
        let n = std::str::from_utf8(&self.s[..end]).ok()?.parse().ok()?;
        self.s = &self.s[end..];
        Some(n)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    fn offset(&mut self) -> Option<i32> {
        let sign = if self.eat(b'-').is_some() {
            -1
        } else {
            let _ = self.eat(b'+');
            1
        };
        let mut secs = self.number()? * 3600;
        if self.eat(b':').is_some() {
            secs += self.number()? * 60;
            if self.eat(b':').is_some() {
                secs += self.number()?;
            }
        }
        Some(sign * secs)
    }

    /// A date and the local time of day of the change (default 02:00).
    fn change(&mut self) -> Option<(Date, i32)> {
        let date = if self.eat(b'M').is_some() {
            let m = self.number()?;
            self.eat(b'.')?;
            let w = self.number()?;
            self.eat(b'.')?;
            let d = self.number()?;
            if !(1..=12).contains(&m) || !(1..=5).contains(&w) || !(0..=6).contains(&d) {
                return None;
            }
            Date::Month(
                u8::try_from(m).ok()?,
                u8::try_from(w).ok()?,
                u8::try_from(d).ok()?,
            )
        } else if self.eat(b'J').is_some() {
            Date::Julian(u16::try_from(self.number()?).ok()?)
        } else {
            Date::Day(u16::try_from(self.number()?).ok()?)
        };
        let time = if self.eat(b'/').is_some() {
            self.offset()?
        } else {
            2 * 3600
        };
        Some((date, time))
    }
}

/// Seconds since the epoch of `date` in `year` at `time` past midnight,
/// as if the local time were UTC.
fn instant(year: i64, date: Date, time: i32) -> i64 {
    let jan1 = days_from_civil(year, 1, 1);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let day = match date {
        Date::Julian(n) => {
            let n = i64::from(n) - 1;
            jan1 + n + i64::from(leap && n >= 59)
        }
        Date::Day(n) => jan1 + i64::from(n),
        Date::Month(m, w, d) => {
            let first = days_from_civil(year, i64::from(m), 1);
            // 1970-01-01 was a Thursday (4).
            let weekday = (first + 4).rem_euclid(7);
            let mut day = first + (i64::from(d) - weekday).rem_euclid(7) + 7 * (i64::from(w) - 1);
            let (ny, nm) = if m == 12 {
                (year + 1, 1)
            } else {
                (year, i64::from(m) + 1)
            };
            while day >= days_from_civil(ny, nm, 1) {
                day -= 7;
            }
            day
        }
    };
    day * 86_400 + i64::from(time)
}

/// Days since 1970-01-01 of a date (proleptic Gregorian; Howard Hinnant's
/// algorithm, with eras of 400 years from 0000-03-01).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day since 1970-01-01: (year, month, day).
pub fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn paris() -> Zone {
        Zone {
            rule: Rule::parse("CET-1CEST,M3.5.0,M10.5.0/3"),
            ..Zone::utc()
        }
    }

    #[test]
    fn utc_is_formatted_across_leap_years() {
        let z = Zone::utc();
        assert_eq!(z.format(0), "1970-01-01 00:00 UTC");
        assert_eq!(z.format(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(z.format(4_107_542_399), "2100-02-28 23:59 UTC");
    }

    #[test]
    fn european_summer_time_starts_and_ends_on_the_last_sundays() {
        let z = paris();
        // 2026-03-29 01:00 UTC: summer time starts (02:00 CET -> 03:00 CEST).
        assert_eq!(z.format(1_774_745_999), "2026-03-29 01:59 CET");
        assert_eq!(z.format(1_774_746_000), "2026-03-29 03:00 CEST");
        // 2026-10-25 01:00 UTC: it ends (03:00 CEST -> 02:00 CET).
        assert_eq!(z.format(1_792_889_999), "2026-10-25 02:59 CEST");
        assert_eq!(z.format(1_792_890_000), "2026-10-25 02:00 CET");
    }

    #[test]
    fn southern_and_fixed_rules_and_names_in_brackets() {
        // Sydney: summer from the first Sunday of October to the first of April.
        let syd = Rule::parse("AEST-10AEDT,M10.1.0,M4.1.0/3").unwrap();
        assert_eq!(syd.at(1_767_225_600).1, "AEDT", "January");
        assert_eq!(syd.at(1_782_864_000).1, "AEST", "July");
        let fixed = Rule::parse("<+0530>-5:30").unwrap();
        assert_eq!(fixed.at(0), (19_800, "+0530".into()));
        assert_eq!(Rule::parse("Europe/Paris"), None);
        assert_eq!(Rule::parse("CET-1CEST,M13.5.0,M10.5.0"), None);
    }

    #[test]
    fn a_tzif_file_gives_its_transitions_and_then_its_rule() {
        // A version-2 file: one transition (at 1000 s, to type 1) and the
        // Paris rule in its footer.
        let counts = |t: u32, ty: u32, c: u32| {
            let mut h = b"TZif2".to_vec();
            h.extend([0; 15]);
            for n in [0, 0, 0, t, ty, c] {
                h.extend(u32::to_be_bytes(n));
            }
            h
        };
        let mut b = counts(1, 2, 8);
        b.extend(1000i32.to_be_bytes());
        b.push(1);
        b.extend([0, 0, 0, 0, 0, 0, 0, 0, 0x0e, 0x10, 0, 4]);
        b.extend(b"LMT\0CET\0");
        b.extend(counts(1, 2, 8));
        b.extend(1000i64.to_be_bytes());
        b.push(1);
        b.extend([0, 0, 0, 0, 0, 0, 0, 0, 0x0e, 0x10, 0, 4]);
        b.extend(b"LMT\0CET\0");
        b.extend(b"\nCET-1CEST,M3.5.0,M10.5.0/3\n");
        let z = Zone::from_tzif(&b).unwrap();
        assert_eq!(z.at(10), (0, "LMT".into()));
        assert_eq!(z.at(1_774_746_000), (7200, "CEST".into()));
        assert_eq!(z.at(1_792_890_000), (3600, "CET".into()));
        assert!(Zone::from_tzif(&b[..50]).is_none());
        assert!(Zone::from_tzif(b"not a zone file").is_none());
    }

    proptest! {
        #[test]
        fn civil_dates_round_trip(days in -1_000_000i64..1_000_000) {
            let (y, m, d) = civil(days);
            prop_assert_eq!(days_from_civil(y, m, d), days);
        }

        #[test]
        fn any_bytes_read_as_a_zone_never_panic(b in prop::collection::vec(any::<u8>(), 0..200)) {
            let mut bytes = b"TZif2".to_vec();
            bytes.extend(b);
            let _ = Zone::from_tzif(&bytes);
        }
    }
}
