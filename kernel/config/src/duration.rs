//! Durations as people write them: `90s`, `5m`, `1h`, `500ms`, or plain seconds (`90`).

use std::time::Duration;

/// Parse `text`: a number (whole or decimal) with an optional unit `ms`, `s`, `m` or `h`
/// (no unit = seconds). Zero and negative values are refused.
pub fn parse(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let bad = || {
        format!(
            "`{text}` is not a duration; write it like `90s`, `5m`, `1h` or plain seconds (`90`)"
        )
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" | "secs" => value,
        "ms" => value / 1000.0,
        "m" | "min" | "mins" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(bad()),
    };
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(format!("`{text}` must be longer than zero"));
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| bad())
}

/// `d` the way [`parse`] reads it back: `3s`, `5m`, `1h`, `1500ms`.
pub fn shown(d: Duration) -> String {
    let secs = d.as_secs();
    if d.subsec_nanos() != 0 || secs == 0 {
        format!("{}ms", d.as_millis())
    } else if secs.is_multiple_of(3600) {
        format!("{}h", secs / 3600)
    } else if secs.is_multiple_of(60) {
        format!("{}m", secs / 60)
    } else {
        format!("{secs}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_plain_seconds() {
        let s = Duration::from_secs;
        assert_eq!(parse("90s"), Ok(s(90)));
        assert_eq!(parse("5m"), Ok(s(300)));
        assert_eq!(parse("1h"), Ok(s(3600)));
        assert_eq!(parse("90"), Ok(s(90)));
        assert_eq!(parse(" 1.5m "), Ok(s(90)));
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        for bad in ["", "s", "5x", "-3s", "0", "0s", "1e9h", "5 m m", "nan"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse("soon").unwrap_err().contains("`90s`"));
    }

    #[test]
    fn shown_reads_back() {
        for text in ["3s", "5m", "1h", "90s", "1500ms"] {
            assert_eq!(shown(parse(text).unwrap()), text);
        }
    }
}
