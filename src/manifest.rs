//! The manifest of memory headers: the list the selector model reads.

use crate::types::{MemoryHeader, MemoryType, DAY_MS};

/// Largest time value a JS `Date` holds (±100,000,000 days from the epoch).
const MAX_JS_TIME_MS: f64 = 8.64e15;

/// `YYYY-MM-DDTHH:mm:ss.sssZ` from milliseconds since the epoch, as JS
/// `new Date(ms).toISOString()`: the fraction is truncated toward zero, times before 1970 count
/// backwards, years outside 0–9999 are written `±YYYYYY`. Where JS would throw (not finite, or
/// beyond ±8.64e15 ms) this returns `Invalid Date`, JS's own text for such a date.
///
/// ```
/// use memdir::manifest::iso_timestamp;
/// assert_eq!(iso_timestamp(1_700_000_000_123.9), "2023-11-14T22:13:20.123Z");
/// assert_eq!(iso_timestamp(-1.5), "1969-12-31T23:59:59.999Z");
/// assert_eq!(iso_timestamp(f64::NAN), "Invalid Date");
/// ```
pub fn iso_timestamp(ms: f64) -> String {
    if !is_valid_time(ms) {
        return "Invalid Date".to_owned();
    }
    let mut out = String::with_capacity(27);
    push_iso(&mut out, ms);
    out
}

/// Append [`iso_timestamp`] of `ms`, which [`is_valid_time`] accepts, to `out` (written in a
/// buffer on the stack: no allocation beyond `out`'s own growth).
fn push_iso(out: &mut String, ms: f64) {
    // Valid, so the truncated value fits an i64 exactly.
    let ms = ms.trunc() as i64;
    let day_ms = DAY_MS as i64;
    let (year, month, day) = civil_from_days(ms.div_euclid(day_ms));
    let in_day = ms.rem_euclid(day_ms).unsigned_abs();
    // `±YYYYYY-MM-DDTHH:mm:ss.sssZ`; a year of 0–9999 starts at its last four digits. Each
    // number is written right to left, ending just before byte `end`.
    let mut buf = *b"+000000-00-00T00:00:00.000Z";
    for (end, width, mut n) in [
        (7, 6, year.unsigned_abs()),
        (10, 2, u64::from(month)),
        (13, 2, u64::from(day)),
        (16, 2, in_day / 3_600_000),
        (19, 2, in_day / 60_000 % 60),
        (22, 2, in_day / 1000 % 60),
        (26, 3, in_day % 1000),
    ] {
        for digit in buf.iter_mut().take(end).rev().take(width) {
            *digit = b'0' + (n % 10) as u8;
            n /= 10;
        }
    }
    let start = if (0..=9999).contains(&year) {
        3
    } else {
        if year < 0 {
            buf[0] = b'-';
        }
        0
    };
    // ASCII throughout, so the check cannot fail.
    if let Some(text) = buf.get(start..).and_then(|b| std::str::from_utf8(b).ok()) {
        out.push_str(text);
    }
}

/// Whether a JS `Date` can hold `ms` (finite, within ±8.64e15 ms), i.e. whether
/// `new Date(ms).toISOString()` answers instead of throwing.
///
/// ```
/// use memdir::manifest::is_valid_time;
/// assert!(is_valid_time(-8.64e15));
/// assert!(!is_valid_time(8.64e15 + 1.0));
/// assert!(!is_valid_time(f64::NAN));
/// ```
pub fn is_valid_time(ms: f64) -> bool {
    ms.is_finite() && ms.abs() <= MAX_JS_TIME_MS
}

/// Milliseconds since the epoch of an ISO 8601 time as memory files carry it in `modified`:
/// `YYYY-MM-DDTHH:mm:ss[.fraction](Z|±HH:MM)`, or a bare `YYYY-MM-DD` (midnight UTC). The
/// fraction is read to the millisecond; `None` for anything else, an impossible date or time,
/// or a time a JS `Date` cannot hold.
///
/// ```
/// use memdir::manifest::{iso_timestamp, parse_iso_timestamp};
/// assert_eq!(parse_iso_timestamp("2023-11-14T22:13:20.123Z"), Some(1_700_000_000_123.0));
/// assert_eq!(parse_iso_timestamp("2023-11-15T00:13:20+02:00"), Some(1_700_000_000_000.0));
/// assert_eq!(parse_iso_timestamp("2023-11-14"), Some(1_699_920_000_000.0));
/// assert_eq!(parse_iso_timestamp("2023-02-30T00:00:00Z"), None);
/// assert_eq!(parse_iso_timestamp("yesterday"), None);
/// let t = 1_765_000_000_000.0;
/// assert_eq!(parse_iso_timestamp(&iso_timestamp(t)), Some(t));
/// ```
pub fn parse_iso_timestamp(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        digits.iter().try_fold(0i64, |acc, d| {
            acc.checked_mul(10)?.checked_add(i64::from(d - b'0'))
        })
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&month) {
        return None;
    }
    let days_in_month = match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1..=days_in_month).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let mut ms = days * DAY_MS as i64;
    if b.len() > 10 {
        if !matches!(b.get(10), Some(b'T' | b't'))
            || b.get(13) != Some(&b':')
            || b.get(16) != Some(&b':')
        {
            return None;
        }
        let (h, m, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if h > 23 || m > 59 || s > 59 {
            return None;
        }
        ms += (h * 3600 + m * 60 + s) * 1000;
        let mut at = 19;
        if b.get(at) == Some(&b'.') {
            let digits = b
                .get(at + 1..)?
                .iter()
                .take_while(|d| d.is_ascii_digit())
                .count();
            if digits == 0 {
                return None;
            }
            let millis = format!("{:0<3}", text.get(at + 1..at + 1 + digits.min(3))?);
            ms += num_str(&millis)?;
            at += 1 + digits;
        }
        match b.get(at..)? {
            [b'Z' | b'z'] => {}
            [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
                let (oh, om) = (num(at + 1..at + 3)?, num(at + 4..at + 6)?);
                if oh > 23 || om > 59 {
                    return None;
                }
                let offset = (oh * 60 + om) * 60_000;
                ms += if *sign == b'+' { -offset } else { offset };
            }
            _ => return None,
        }
    }
    let ms = ms as f64;
    is_valid_time(ms).then_some(ms)
}

fn num_str(digits: &str) -> Option<i64> {
    digits.parse().ok()
}

/// Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Proleptic Gregorian (year, month 1–12, day 1–31) of a day count from 1970-01-01
/// (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // 1 ≤ day ≤ 31 and 1 ≤ month ≤ 12 by construction.
    (year, month as u32, day as u32)
}

/// One manifest line: `- [<type>] <filename> (<ISO mtime>): <description>`; the `[<type>] ` part
/// is left out without a type and `: <description>` without a description (an empty description
/// counts as none, as the reference's truthiness test does). The description is not escaped.
/// A time no JS `Date` can hold (NaN, beyond ±8.64e15 ms: a host's stat that lies) leaves out
/// ` (<ISO mtime>)`, where the reference's `toISOString` would throw and lose the whole list;
/// [`format_manifest_checked`] refuses such a time instead.
///
/// ```
/// use memdir::{manifest::manifest_line, MemoryHeader, MemoryType};
/// let header = MemoryHeader {
///     filename: "user_role.md".into(),
///     file_path: "/m/user_role.md".into(),
///     mtime_ms: 1_700_000_000_123.9,
///     description: Some("Senior Go dev".into()),
///     memory_type: Some(MemoryType::User),
///     name: None,
///     body_head: String::new(),
/// };
/// assert_eq!(manifest_line(&header), "- [user] user_role.md (2023-11-14T22:13:20.123Z): Senior Go dev");
/// ```
pub fn manifest_line(header: &MemoryHeader) -> String {
    let mut line = String::with_capacity(48 + header.filename.len());
    push_line(
        &mut line,
        header.memory_type,
        &header.filename,
        header.mtime_ms,
        header.description.as_deref().filter(|d| !d.is_empty()),
    );
    line
}

/// Append one [`manifest_line`] to `out`: the one place the line's layout is written.
fn push_line(
    out: &mut String,
    memory_type: Option<MemoryType>,
    filename: &str,
    mtime_ms: f64,
    description: Option<&str>,
) {
    match memory_type {
        Some(memory_type) => {
            out.push_str("- [");
            out.push_str(memory_type.as_str());
            out.push_str("] ");
        }
        None => out.push_str("- "),
    }
    out.push_str(filename);
    if is_valid_time(mtime_ms) {
        out.push_str(" (");
        push_iso(out, mtime_ms);
        out.push(')');
    }
    if let Some(description) = description {
        out.push_str(": ");
        out.push_str(description);
    }
}

/// One [`manifest_line`] per header, joined with `\n`, no trailing newline (empty for no headers).
///
/// ```
/// assert_eq!(memdir::format_manifest(&[]), "");
/// ```
pub fn format_manifest(headers: &[MemoryHeader]) -> String {
    let text: usize = headers
        .iter()
        .map(|h| h.filename.len() + h.description.as_ref().map_or(0, String::len))
        .sum();
    let mut out = String::with_capacity(text + 48 * headers.len());
    for (i, header) in headers.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        push_line(
            &mut out,
            header.memory_type,
            &header.filename,
            header.mtime_ms,
            header.description.as_deref().filter(|d| !d.is_empty()),
        );
    }
    out
}

/// Numbers per header in [`format_packed`]'s input.
pub const PACKED_FIELDS: usize = 5;

/// What stands for a caller's text in [`format_packed`]'s answer.
pub const TEXT_MARK: char = '\0';

/// The manifest of headers whose texts the caller keeps (`formatManifest`'s fast route): the
/// caller sends, per header, [`PACKED_FIELDS`] numbers, `mtimeMs` then the UTF-16 lengths of
/// `filename`, `type` (−1 when absent), `description` and `filePath` (0 when absent), and all the
/// present types concatenated in `types`. The answer is [`format_manifest_checked`]'s manifest
/// with every filename and description replaced by one [`TEXT_MARK`] (two marks per header,
/// filename first; an absent or empty description prints nothing but keeps its mark): putting
/// the caller's k-th text (`filename₀, description₀, filename₁, …`, an absent one as `""`) at
/// the k-th mark gives the manifest. The caller's texts never cross; every decision is made
/// here: the type is parsed, the input caps of the field-by-field route apply to the lengths
/// (one string, all the strings, the number of headers), and the line's layout and date are
/// written. `None` when anything needs that route's exact error (an unknown type, a cap, a time
/// no JS `Date` holds, numbers that are not whole lengths, `types` not exactly used up).
///
/// ```
/// use memdir::manifest::{format_packed, TEXT_MARK};
/// let (file, description) = ("user_role.md", "Senior Go dev");
/// let numbers = [1_700_000_000_123.9, file.len() as f64, 4.0, description.len() as f64, 0.0];
/// let skeleton = format_packed(&numbers, "user").unwrap();
/// assert_eq!(skeleton, "- [user] \0 (2023-11-14T22:13:20.123Z): \0");
/// let mut texts = [file, description].into_iter();
/// let manifest: String = skeleton
///     .split(TEXT_MARK)
///     .enumerate()
///     .flat_map(|(i, piece)| [if i > 0 { texts.next().unwrap() } else { "" }, piece])
///     .collect();
/// assert_eq!(manifest, "- [user] user_role.md (2023-11-14T22:13:20.123Z): Senior Go dev");
/// assert_eq!(format_packed(&numbers, "User"), None);
/// ```
pub fn format_packed(numbers: &[f64], types: &str) -> Option<String> {
    use crate::types::{MAX_CALL_UNITS, MAX_INPUT_ITEMS, MAX_INPUT_UNITS};
    let count = numbers.len() / PACKED_FIELDS;
    if numbers.len() % PACKED_FIELDS != 0 || count > MAX_INPUT_ITEMS {
        return None;
    }
    // A UTF-16 length as the caller counted it: whole, within the one-string cap.
    let units = |n: f64| -> Option<usize> {
        (n >= 0.0 && n.fract() == 0.0 && n <= MAX_INPUT_UNITS as f64).then_some(n as usize)
    };
    let mut out = String::with_capacity(count.saturating_mul(48).min(MAX_CALL_UNITS));
    let (mut total, mut at) = (0usize, 0usize);
    for (i, header) in numbers.chunks_exact(PACKED_FIELDS).enumerate() {
        let &[mtime_ms, filename, memory_type, description, file_path] = header else {
            return None;
        };
        let (filename, description, file_path) =
            (units(filename)?, units(description)?, units(file_path)?);
        let memory_type = match memory_type {
            -1.0 => None,
            n => {
                let len = units(n)?;
                let given = types.get(at..at.checked_add(len)?)?;
                at += len;
                total += len;
                Some(MemoryType::parse(given)?)
            }
        };
        total += filename + description + file_path;
        if total > MAX_CALL_UNITS || !is_valid_time(mtime_ms) {
            return None;
        }
        if i > 0 {
            out.push('\n');
        }
        let mark = "\0";
        push_line(
            &mut out,
            memory_type,
            mark,
            mtime_ms,
            (description > 0).then_some(mark),
        );
        if description == 0 {
            out.push(TEXT_MARK);
        }
    }
    (at == types.len()).then_some(out)
}

/// [`format_manifest`] for headers a caller passes in (`formatManifest`): a time no JS `Date`
/// can hold is refused with `INVALID_INPUT` naming the entry, as the reference throws a
/// `RangeError` for it, rather than printed as `Invalid Date` or left out.
///
/// ```
/// use memdir::{manifest::format_manifest_checked, MemoryHeader};
/// let mut h = MemoryHeader {
///     filename: "a.md".into(),
///     file_path: "/m/a.md".into(),
///     mtime_ms: 0.0,
///     description: None,
///     memory_type: None,
///     name: None,
///     body_head: String::new(),
/// };
/// assert_eq!(format_manifest_checked(&[h.clone()]).unwrap(), "- a.md (1970-01-01T00:00:00.000Z)");
/// h.mtime_ms = f64::NAN;
/// let err = format_manifest_checked(&[h]).unwrap_err();
/// assert_eq!(err.code, memdir::Code::InvalidInput);
/// assert!(err.message.contains("headers[0].mtimeMs"));
/// ```
pub fn format_manifest_checked(headers: &[MemoryHeader]) -> crate::error::Result<String> {
    if let Some(i) = headers.iter().position(|h| !is_valid_time(h.mtime_ms)) {
        return Err(crate::error::Error::new(
            crate::error::Code::InvalidInput,
            format!(
                "invalid headers[{i}].mtimeMs: not a time a JS Date can hold \
                 (NaN, infinite, or beyond ±8.64e15 ms)"
            ),
        ));
    }
    Ok(format_manifest(headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_matches_js_at_the_edges() {
        // Values checked against Node's Date#toISOString.
        assert_eq!(iso_timestamp(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(-0.9), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(8.64e15), "+275760-09-13T00:00:00.000Z");
        assert_eq!(iso_timestamp(-8.64e15), "-271821-04-20T00:00:00.000Z");
        assert_eq!(
            iso_timestamp(-62_198_755_200_001.0),
            "-000002-12-31T23:59:59.999Z"
        );
        assert_eq!(
            iso_timestamp(-62_167_219_200_000.0),
            "0000-01-01T00:00:00.000Z"
        );
        assert_eq!(
            iso_timestamp(253_402_300_800_000.0),
            "+010000-01-01T00:00:00.000Z"
        );
        assert_eq!(iso_timestamp(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_timestamp(8.64e15 + 1.0), "Invalid Date");
        for bad in [f64::NAN, f64::INFINITY, -8.64e15 - 1.0, 1e300] {
            let header = MemoryHeader {
                filename: "a.md".into(),
                file_path: "/m/a.md".into(),
                mtime_ms: bad,
                description: Some("d".into()),
                memory_type: None,
                name: None,
                body_head: String::new(),
            };
            assert_eq!(manifest_line(&header), "- a.md: d", "{bad}");
            assert!(format_manifest_checked(&[header]).is_err());
        }
        assert_eq!(iso_timestamp(f64::INFINITY), "Invalid Date");
    }

    /// UTF-16 length, as JS counts it.
    fn units(s: &str) -> f64 {
        s.encode_utf16().count() as f64
    }

    /// What `formatManifest`'s JS half sends for `headers`: the numbers, the types, the texts.
    fn pack(headers: &[MemoryHeader]) -> (Vec<f64>, String, Vec<&str>) {
        let (mut numbers, mut types, mut texts) = (vec![], String::new(), vec![]);
        for h in headers {
            let description = h.description.as_deref().unwrap_or("");
            let memory_type = h.memory_type.map_or(-1.0, |t| {
                types.push_str(t.as_str());
                units(t.as_str())
            });
            numbers.extend([
                h.mtime_ms,
                units(&h.filename),
                memory_type,
                units(description),
                units(&h.file_path),
            ]);
            texts.extend([h.filename.as_str(), description]);
        }
        (numbers, types, texts)
    }

    /// The JS half's last step: the k-th text at the k-th mark (`None` when they do not match).
    fn fill(skeleton: &str, texts: &[&str]) -> Option<String> {
        let pieces: Vec<&str> = skeleton.split(TEXT_MARK).collect();
        if pieces.len() != texts.len() + 1 {
            return None;
        }
        let mut out = pieces[0].to_owned();
        for (text, piece) in texts.iter().zip(&pieces[1..]) {
            out.push_str(text);
            out.push_str(piece);
        }
        Some(out)
    }

    fn header(rng: &mut crate::test_rng::XorShift) -> MemoryHeader {
        const PIECES: [&str; 8] = ["a", "é", "🦀", "\0", " ", ": ", "\n", "- [x]"];
        let mut text = |max: u64| -> String {
            (0..rng.next() % max)
                .map(|_| PIECES[(rng.next() % 8) as usize])
                .collect()
        };
        let (filename, description, file_path) = (text(6), text(5), text(3));
        let description = match rng.next() % 3 {
            0 => None,
            _ => Some(description),
        };
        let memory_type = match rng.next() % 5 {
            4 => None,
            n => Some(MemoryType::ALL[n as usize]),
        };
        let mtime_ms = match rng.next() % 6 {
            0 => -8.64e15,
            1 => 8.64e15,
            2 => -1.5,
            n => (rng.next() % 4_000_000_000_000) as f64 * if n == 3 { -1.0 } else { 1.0 } + 0.25,
        };
        MemoryHeader {
            filename,
            file_path,
            mtime_ms,
            description,
            memory_type,
            name: None,
            body_head: String::new(),
        }
    }

    #[test]
    fn packed_route_gives_the_checked_manifest() {
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for round in 0..400 {
            let headers: Vec<MemoryHeader> =
                (0..rng.next() % 6).map(|_| header(&mut rng)).collect();
            let (numbers, types, texts) = pack(&headers);
            let skeleton = format_packed(&numbers, &types).expect("plain headers");
            assert_eq!(
                fill(&skeleton, &texts),
                Some(format_manifest_checked(&headers).unwrap()),
                "round {round}: {headers:?}"
            );
            // Nothing but marks of the caller's texts: the layout and the dates are ASCII.
            assert!(skeleton.is_ascii());
        }
    }

    #[test]
    fn packed_route_declines_what_the_field_route_refuses() {
        use crate::types::{MAX_CALL_UNITS, MAX_INPUT_ITEMS, MAX_INPUT_UNITS};
        let ok = [0.0, 4.0, 4.0, 1.0, 0.0];
        assert_eq!(
            format_packed(&ok, "user").as_deref(),
            Some("- [user] \0 (1970-01-01T00:00:00.000Z): \0")
        );
        let declined = |numbers: &[f64], types: &str| format_packed(numbers, types).is_none();
        // Unknown, empty, differently cased or non-ASCII types; types left over or missing.
        for types in ["User", "", "usér", "useruser", "use"] {
            let mut n = ok;
            n[2] = units(types);
            assert!(declined(&n, types), "{types:?}");
        }
        assert!(declined(&ok, "users"));
        assert!(declined(&[0.0, 4.0, -1.0, 1.0, 0.0], "user"));
        // Times no JS Date holds.
        for t in [f64::NAN, f64::INFINITY, 8.64e15 + 1.0, -8.64e15 - 1.0] {
            assert!(declined(&[t, 4.0, 4.0, 1.0, 0.0], "user"), "{t}");
        }
        // Lengths that are not lengths, or past one string's cap.
        for bad in [-1.0, 0.5, f64::NAN, MAX_INPUT_UNITS as f64 + 1.0] {
            for field in [1, 3, 4] {
                let mut n = ok;
                n[field] = bad;
                assert!(declined(&n, "user"), "{field}: {bad}");
            }
        }
        // At one string's cap: accepted (the texts are the caller's).
        assert!(!declined(
            &[0.0, MAX_INPUT_UNITS as f64, -1.0, 0.0, 0.0],
            ""
        ));
        // Past the cap of all the strings of the call, counting filePath too.
        let big = MAX_INPUT_UNITS as f64;
        let per_call = MAX_CALL_UNITS / MAX_INPUT_UNITS;
        let at_cap: Vec<f64> = (0..per_call)
            .flat_map(|_| [0.0, big, -1.0, 0.0, 0.0])
            .collect();
        assert!(!declined(&at_cap, ""));
        let mut over = at_cap.clone();
        over[4] = 1.0;
        assert!(declined(&over, ""));
        // A count of numbers that is not whole headers; more headers than the item cap.
        assert!(declined(&ok[..4], "user"));
        let many: Vec<f64> = (0..=MAX_INPUT_ITEMS)
            .flat_map(|_| [0.0, 1.0, -1.0, 0.0, 0.0])
            .collect();
        assert!(declined(&many, ""));
        assert!(!declined(&many[PACKED_FIELDS..], ""));
        assert_eq!(format_packed(&[], "").as_deref(), Some(""));
    }
}
