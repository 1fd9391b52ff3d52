//! `formatFileSize`.

use crate::jsstr::{js_number_to_string, to_fixed_1, truncate_ascii};

/// Human size as the reference prints it: `1023 bytes`, `1KB`, `24.4KB`, `1MB` (JS `toFixed(1)`
/// with a trailing `.0` removed; ties round away from zero).
///
/// ```
/// use memdir::format_file_size;
/// assert_eq!(format_file_size(1023.0), "1023 bytes");
/// assert_eq!(format_file_size(25_000.0), "24.4KB");
/// assert_eq!(format_file_size(25_856.0), "25.3KB");
/// assert_eq!(format_file_size(1_048_576.0), "1MB");
/// ```
pub fn format_file_size(n: f64) -> String {
    let kb = n / 1024.0;
    if kb < 1.0 {
        return format!("{} bytes", js_number_to_string(n));
    }
    if kb < 1024.0 {
        return format!("{}KB", one_decimal(kb));
    }
    let mb = kb / 1024.0;
    if mb < 1024.0 {
        return format!("{}MB", one_decimal(mb));
    }
    format!("{}GB", one_decimal(mb / 1024.0))
}

/// `x.toFixed(1).replace(/\.0$/, "")`.
fn one_decimal(x: f64) -> String {
    let mut fixed = to_fixed_1(x);
    if fixed.ends_with(".0") {
        let len = fixed.len() - 2;
        truncate_ascii(&mut fixed, len);
    }
    fixed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_vectors() {
        let cases = [
            (0.0, "0 bytes"),
            (1023.0, "1023 bytes"),
            (1024.0, "1KB"),
            (1075.0, "1KB"),
            (25_000.0, "24.4KB"),
            (25_001.0, "24.4KB"),
            (25_856.0, "25.3KB"),
            (26_000.0, "25.4KB"),
            (30_000.0, "29.3KB"),
            (50_099.0, "48.9KB"),
            (1_048_576.0, "1MB"),
        ];
        for (n, expected) in cases {
            assert_eq!(format_file_size(n), expected, "{n}");
        }
    }

    #[test]
    fn megabytes_gigabytes_and_edges() {
        assert_eq!(format_file_size(1_048_575.0), "1024KB"); // 1023.999…KB rounds up
        assert_eq!(format_file_size(1_310_720.0), "1.3MB"); // exact tie 1.25 rounds up
        assert_eq!(format_file_size(1_073_741_824.0), "1GB");
        assert_eq!(format_file_size(5.5 * 1_073_741_824.0 * 1024.0), "5632GB");
        assert_eq!(format_file_size(-5.0), "-5 bytes");
        assert_eq!(format_file_size(0.5), "0.5 bytes");
        assert_eq!(format_file_size(f64::NAN), "NaNGB");
    }
}
