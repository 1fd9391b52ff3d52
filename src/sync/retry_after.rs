//! `Retry-After` (RFC 9110 §10.2.3): a number of seconds, or an HTTP date in any of the three
//! forms a recipient must accept (IMF-fixdate, RFC 850, asctime).

/// How long a `Retry-After` value asks to wait, in milliseconds from `now_ms` (epoch ms):
/// `None` when the value is neither a number of seconds nor an HTTP date. A date in the past
/// asks for no wait.
///
/// ```
/// use memdir::sync::retry_after_ms;
/// assert_eq!(retry_after_ms("120", 0.0), Some(120_000.0));
/// // 1994-11-06T08:49:37Z is 784111777 s after the epoch.
/// let at = 784_111_777_000.0;
/// assert_eq!(retry_after_ms("Sun, 06 Nov 1994 08:49:37 GMT", at - 5_000.0), Some(5_000.0));
/// assert_eq!(retry_after_ms("Sunday, 06-Nov-94 08:49:37 GMT", at), Some(0.0));
/// assert_eq!(retry_after_ms("Sun Nov  6 08:49:37 1994", at + 1.0), Some(0.0));
/// assert_eq!(retry_after_ms("soon", 0.0), None);
/// ```
pub fn retry_after_ms(value: &str, now_ms: f64) -> Option<f64> {
    let value = value.trim();
    if let Some(seconds) = decimal(value) {
        return Some(seconds as f64 * 1000.0);
    }
    let at = parse_http_date(value)?;
    Some((at - now_ms).max(0.0))
}

/// A run of ASCII digits as a number, saturating (absurd lengths are capped by the caller);
/// `None` for anything else. (By hand: `str::parse` would add its code to the wasm module.)
pub(crate) fn decimal(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.bytes().try_fold(0u64, |n, b| {
        b.is_ascii_digit()
            .then(|| n.saturating_mul(10).saturating_add(u64::from(b - b'0')))
    })
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// An HTTP date as epoch milliseconds.
fn parse_http_date(value: &str) -> Option<f64> {
    let parts: Vec<&str> = value.split_whitespace().collect();
    let (day, month, year, time) = match parts.as_slice() {
        // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
        [_, day, month, year, time, "GMT"] => {
            (number(day)?, month_index(month)?, number(year)?, *time)
        }
        // RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit years: 70–99 → 19xx)
        [_, date, time, "GMT"] => {
            let mut it = date.split('-');
            let (day, month, year) = (it.next()?, it.next()?, it.next()?);
            let year = number(year)?;
            let year = match year {
                0..=69 => 2000 + year,
                70..=99 => 1900 + year,
                _ => year,
            };
            (number(day)?, month_index(month)?, year, *time)
        }
        // asctime: `Sun Nov  6 08:49:37 1994`
        [_, month, day, time, year] => (number(day)?, month_index(month)?, number(year)?, *time),
        _ => return None,
    };
    let mut hms = time.split(':');
    let (h, m, s) = (
        number(hms.next()?)?,
        number(hms.next()?)?,
        number(hms.next()?)?,
    );
    if hms.next().is_some() || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(year, month + 1, day);
    Some(((days * 86_400 + h * 3600 + m * 60 + s) as f64) * 1000.0)
}

fn number(text: &str) -> Option<i64> {
    if text.len() > 4 {
        return None;
    }
    decimal(text).and_then(|n| i64::try_from(n).ok())
}

fn month_index(text: &str) -> Option<i64> {
    MONTHS
        .iter()
        .position(|m| *m == text)
        .and_then(|i| i64::try_from(i).ok())
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1–12).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2026, 12, 1), 20_788);
    }

    #[test]
    fn malformed_dates() {
        for bad in [
            "",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:49 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "-5",
            "1.5",
        ] {
            assert_eq!(retry_after_ms(bad, 0.0), None, "{bad:?}");
        }
    }
}
