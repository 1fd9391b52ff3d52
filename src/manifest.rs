//! The manifest of memory headers: the list the selector model reads.

use crate::types::{MemoryHeader, DAY_MS};

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
    // In range, so the truncated value fits an i64 exactly.
    let ms = ms.trunc() as i64;
    let day_ms = DAY_MS as i64;
    let days = ms.div_euclid(day_ms);
    let in_day = ms.rem_euclid(day_ms);
    let (year, month, day) = civil_from_days(days);
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", year.unsigned_abs())
    } else {
        format!("+{year:06}")
    };
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
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
    let mut line = String::from("- ");
    if let Some(memory_type) = header.memory_type {
        line.push('[');
        line.push_str(memory_type.as_str());
        line.push_str("] ");
    }
    line.push_str(&header.filename);
    if is_valid_time(header.mtime_ms) {
        line.push_str(" (");
        line.push_str(&iso_timestamp(header.mtime_ms));
        line.push(')');
    }
    if let Some(description) = header.description.as_deref().filter(|d| !d.is_empty()) {
        line.push_str(": ");
        line.push_str(description);
    }
    line
}

/// One [`manifest_line`] per header, joined with `\n`, no trailing newline (empty for no headers).
///
/// ```
/// assert_eq!(memdir::format_manifest(&[]), "");
/// ```
pub fn format_manifest(headers: &[MemoryHeader]) -> String {
    let lines: Vec<String> = headers.iter().map(manifest_line).collect();
    crate::jsstr::join(&lines, "\n")
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
}
