//! Retry policy for opening a completion (reference inventory §6.2), as pure code: which
//! failures of `provider.open` are retried, and how long to wait. Only the open phase (connect
//! and response head) is retried; a stream cut later is the agent's business.

use crate::error::PluginError;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

/// Retry settings. `Default` is the original's: 10 retries, 500 ms doubling, capped at 15 s,
/// plus up to 250 ms of jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` attempts in all).
    pub max_retries: u32,
    pub base: Duration,
    /// Upper bound of one computed backoff.
    pub cap: Duration,
    /// Longest `Retry-After` a server may ask for and get: rate limits commonly ask for tens of
    /// seconds, which are waited in full; a longer one fails the call at once.
    pub retry_after_ceiling: Duration,
    /// Upper bound of the random extra added to a computed backoff.
    pub jitter: Duration,
    /// The longest one request may spend failing and waiting to retry (from its first
    /// attempt): a retry whose wait would end past it is not made (`retry_budget_seconds`).
    pub budget: Duration,
    /// The pause before the one retry of an unreachable endpoint (the connection refused,
    /// the host name unknown): a server that is restarting gets a moment, nothing more.
    pub unreachable_pause: Duration,
}

/// Retries of an unreachable endpoint (nothing listens, no such host), whatever
/// `max_retries` says: two attempts in all.
pub const UNREACHABLE_RETRIES: u32 = 1;

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_retries: super::resolve::DEFAULT_MAX_RETRIES,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(15),
            retry_after_ceiling: Duration::from_secs(120),
            jitter: Duration::from_millis(250),
            unreachable_pause: Duration::from_secs(1),
            budget: super::resolve::DEFAULT_RETRY_BUDGET,
        }
    }
}

/// What to do after a failed open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Wait this long, then try again.
    Retry { after: Duration },
    /// Give up.
    Fail(FailureKind),
}

/// Why we give up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// 401/403: the key is wrong or missing.
    Auth,
    /// 429 whose body says a periodic quota is used up: waiting seconds will not help.
    QuotaExhausted,
    /// Another 4xx: the request itself is wrong.
    Client,
    /// Anything else that repeating will not fix (bad request built, denied, cancelled …).
    NotRetryable,
    /// The server's `Retry-After` asks for a longer wait than one wait may take (`cap`):
    /// retrying earlier is refused again, waiting that long is not what a run should do.
    RetryAfterTooLong { wait: Duration, cap: Duration },
    /// Nothing answers at the endpoint (the connection refused, the host name unknown), and
    /// it was already tried again ([`UNREACHABLE_RETRIES`]).
    Unreachable,
}

impl RetryPolicy {
    /// A policy with the provider's `max_retries` and the default timings.
    pub fn with_max_retries(max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            max_retries,
            ..RetryPolicy::default()
        }
    }

    /// The verdict on `error` from `open`, where `attempt` is the 1-based number of the retry
    /// that would follow (1 after the first failure). Jitter is random. The verdict does not
    /// count: the caller stops retrying once `max_retries` retries were made
    /// ([`RetryPolicy::allows`]).
    pub fn verdict(&self, error: &PluginError, attempt: u32) -> Verdict {
        self.verdict_with_jitter(error, attempt, random_fraction())
    }

    /// [`RetryPolicy::verdict`] with the jitter fraction (0..1) given, for deterministic tests.
    pub fn verdict_with_jitter(
        &self,
        error: &PluginError,
        attempt: u32,
        jitter_fraction: f64,
    ) -> Verdict {
        match classify(error) {
            Class::Fail(kind) => Verdict::Fail(kind),
            Class::Unreachable if attempt <= UNREACHABLE_RETRIES => Verdict::Retry {
                after: self.unreachable_pause,
            },
            Class::Unreachable => Verdict::Fail(FailureKind::Unreachable),
            Class::Retry(Some(wait)) if wait > self.retry_after_ceiling => {
                Verdict::Fail(FailureKind::RetryAfterTooLong {
                    wait,
                    cap: self.retry_after_ceiling,
                })
            }
            Class::Retry(retry_after) => Verdict::Retry {
                after: self.backoff(attempt, retry_after, jitter_fraction),
            },
        }
    }

    /// Whether retry number `attempt` (1-based) is within `max_retries`.
    pub fn allows(&self, attempt: u32) -> bool {
        (1..=self.max_retries).contains(&attempt)
    }

    /// The wait before retry number `attempt` (1-based): the server's `Retry-After` capped at
    /// `cap`, else `base × 2^(attempt−1)` capped at `cap`, plus `jitter × jitter_fraction`.
    pub fn backoff(
        &self,
        attempt: u32,
        retry_after: Option<Duration>,
        jitter_fraction: f64,
    ) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.retry_after_ceiling);
        }
        let exponent = attempt.max(1) - 1;
        let factor = 1u32.checked_shl(exponent).filter(|_| exponent < 32);
        let exp = factor
            .and_then(|f| self.base.checked_mul(f))
            .unwrap_or(self.cap)
            .min(self.cap);
        let fraction = if jitter_fraction.is_finite() {
            jitter_fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        exp + self.jitter.mul_f64(fraction)
    }
}

enum Class {
    Retry(Option<Duration>),
    /// Retried [`UNREACHABLE_RETRIES`] times after a short pause, then failed.
    Unreachable,
    Fail(FailureKind),
}

fn classify(error: &PluginError) -> Class {
    match error {
        PluginError::Auth(_) => Class::Fail(FailureKind::Auth),
        PluginError::RateLimited {
            retry_after_ms,
            message,
        } => {
            if is_quota_exhausted(message) {
                Class::Fail(FailureKind::QuotaExhausted)
            } else {
                Class::Retry(retry_after_ms.map(Duration::from_millis))
            }
        }
        PluginError::Http { status, body } => match status {
            401 | 403 => Class::Fail(FailureKind::Auth),
            429 if is_quota_exhausted(body) => Class::Fail(FailureKind::QuotaExhausted),
            408 | 429 | 500..=599 => Class::Retry(None),
            400..=499 => Class::Fail(FailureKind::Client),
            _ => Class::Fail(FailureKind::NotRetryable),
        },
        PluginError::Other { code, .. } if code == "unreachable" => Class::Unreachable,
        PluginError::Other {
            code, retryable, ..
        } if code == "transport" || *retryable => Class::Retry(None),
        _ => Class::Fail(FailureKind::NotRetryable),
    }
}

/// Whether a 429 body says a periodic quota (not a per-second rate) is used up. An explicit
/// rate-limit code wins: such a body is a rate limit, retried.
pub fn is_quota_exhausted(body: &str) -> bool {
    let text = body.to_lowercase();
    const RATE_LIMIT_CODES: &[&str] = &[
        "rate_limit_exceeded",
        "rate_limit_error",
        "\"rate_limit\"",
        "ratelimitexceeded",
    ];
    if RATE_LIMIT_CODES.iter().any(|c| text.contains(c)) {
        return false;
    }
    const QUOTA_CODES: &[&str] = &[
        "insufficient_quota",
        "quota_exceeded",
        "usage_quota_exceeded",
        "usage_limit_reached",
        "quotaexceeded",
    ];
    if QUOTA_CODES.iter().any(|c| text.contains(c)) {
        return true;
    }
    const QUOTA_WORDS: &[&str] = &[
        "exceeded",
        "exhausted",
        "reset",
        "used up",
        "run out",
        "ran out",
    ];
    if text.contains("quota") && QUOTA_WORDS.iter().any(|w| text.contains(w)) {
        return true;
    }
    const CN_QUOTA: &[&str] = &["额度", "配额", "用量"];
    const CN_WORDS: &[&str] = &[
        "用尽",
        "用完",
        "耗尽",
        "超出",
        "超过",
        "不足",
        "已达",
        "达到上限",
        "重置",
        "上限",
    ];
    CN_QUOTA.iter().any(|q| text.contains(q)) && CN_WORDS.iter().any(|w| text.contains(w))
}

/// A fraction in 0..1 from the standard library's randomly seeded hasher (no RNG dependency).
fn random_fraction() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn http(status: u16, body: &str) -> PluginError {
        PluginError::Http {
            status,
            body: body.into(),
        }
    }

    fn other(code: &str, retryable: bool) -> PluginError {
        PluginError::Other {
            code: code.into(),
            message: "m".into(),
            retryable,
            detail: None,
        }
    }

    #[test]
    fn backoff_schedule_doubles_and_caps() {
        let p = RetryPolicy::default();
        let schedule: Vec<u128> = (1..=8)
            .map(|a| p.backoff(a, None, 0.0).as_millis())
            .collect();
        assert_eq!(schedule, [500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]);
        assert_eq!(p.backoff(1, None, 1.0), ms(750));
        assert_eq!(p.backoff(6, None, 0.5), ms(15125));
        assert_eq!(p.backoff(0, None, 0.0), ms(500));
        assert_eq!(p.backoff(u32::MAX, None, 0.0), ms(15000));
        assert_eq!(p.backoff(40, None, 0.0), ms(15000));
        assert_eq!(p.backoff(1, None, f64::NAN), ms(500));
        assert_eq!(p.backoff(1, None, 7.0), ms(750));
    }

    #[test]
    fn retry_after_is_used_and_capped_without_jitter() {
        let p = RetryPolicy::default();
        assert_eq!(p.backoff(3, Some(ms(3000)), 1.0), ms(3000));
        assert_eq!(p.backoff(1, Some(Duration::from_secs(60)), 1.0), ms(60_000));
        assert_eq!(
            p.backoff(1, Some(Duration::from_secs(600)), 1.0),
            ms(120_000)
        );
        let limited = PluginError::RateLimited {
            retry_after_ms: Some(2000),
            message: "slow down".into(),
        };
        assert_eq!(
            p.verdict_with_jitter(&limited, 1, 0.9),
            Verdict::Retry { after: ms(2000) }
        );
        let too_long = PluginError::RateLimited {
            retry_after_ms: Some(3_600_000),
            message: "HTTP 503: maintenance".into(),
        };
        assert_eq!(
            p.verdict_with_jitter(&too_long, 1, 0.0),
            Verdict::Fail(FailureKind::RetryAfterTooLong {
                wait: Duration::from_secs(3600),
                cap: p.retry_after_ceiling
            })
        );
        let no_header = PluginError::RateLimited {
            retry_after_ms: None,
            message: "Rate limit reached for requests".into(),
        };
        assert_eq!(
            p.verdict_with_jitter(&no_header, 2, 0.0),
            Verdict::Retry { after: ms(1000) }
        );
    }

    #[test]
    fn retryable_and_fatal_failures() {
        let p = RetryPolicy::default();
        let retry =
            |e: &PluginError| matches!(p.verdict_with_jitter(e, 1, 0.0), Verdict::Retry { .. });
        let fail = |e: &PluginError| match p.verdict_with_jitter(e, 1, 0.0) {
            Verdict::Fail(kind) => Some(kind),
            Verdict::Retry { .. } => None,
        };
        for status in [408, 429, 500, 502, 503, 504, 529] {
            assert!(retry(&http(status, "busy")), "{status}");
        }
        assert!(retry(&other("transport", true)));
        assert!(retry(&other("transport", false)));
        assert!(retry(&other("stream-interrupted", true)));
        assert_eq!(
            fail(&other("bad-response", false)),
            Some(FailureKind::NotRetryable)
        );
        assert_eq!(
            fail(&PluginError::Auth("HTTP 401".into())),
            Some(FailureKind::Auth)
        );
        assert_eq!(fail(&http(401, "")), Some(FailureKind::Auth));
        assert_eq!(fail(&http(403, "")), Some(FailureKind::Auth));
        for status in [400, 404, 413, 422] {
            assert_eq!(
                fail(&http(status, "")),
                Some(FailureKind::Client),
                "{status}"
            );
        }
        assert_eq!(fail(&http(302, "")), Some(FailureKind::NotRetryable));
        assert_eq!(
            fail(&http(429, r#"{"error":{"code":"insufficient_quota"}}"#)),
            Some(FailureKind::QuotaExhausted)
        );
        let quota = PluginError::RateLimited {
            retry_after_ms: Some(1000),
            message: "You exceeded your current quota, please check your plan".into(),
        };
        assert_eq!(fail(&quota), Some(FailureKind::QuotaExhausted));
        for e in [
            PluginError::InvalidInput("x".into()),
            PluginError::Denied("x".into()),
            PluginError::NotFound("x".into()),
            PluginError::Timeout("x".into()),
            PluginError::Cancelled,
            PluginError::Unsupported("x".into()),
        ] {
            assert_eq!(fail(&e), Some(FailureKind::NotRetryable), "{e}");
        }
    }

    #[test]
    fn max_retries_bounds_the_attempts() {
        let p = RetryPolicy::with_max_retries(2);
        assert_eq!(p.max_retries, 2);
        assert_eq!(p.base, RetryPolicy::default().base);
        assert!(!p.allows(0) && p.allows(1) && p.allows(2) && !p.allows(3));
        assert!(!RetryPolicy::with_max_retries(0).allows(1));
        assert_eq!(RetryPolicy::default().max_retries, 10);
        // Fatal errors stay fatal whatever the attempt.
        assert_eq!(
            p.verdict(&http(401, ""), 9),
            Verdict::Fail(FailureKind::Auth)
        );
    }

    #[test]
    fn an_unreachable_endpoint_is_tried_twice_whatever_max_retries() {
        let p = RetryPolicy::default();
        let refused = other("unreachable", false);
        assert_eq!(
            p.verdict_with_jitter(&refused, 1, 0.9),
            Verdict::Retry {
                after: p.unreachable_pause
            }
        );
        assert!(p.unreachable_pause <= Duration::from_secs(2));
        for attempt in [2, 3, 10] {
            assert_eq!(
                p.verdict_with_jitter(&refused, attempt, 0.0),
                Verdict::Fail(FailureKind::Unreachable),
                "{attempt}"
            );
        }
        // Even when marked retryable, the code decides.
        assert_eq!(
            p.verdict_with_jitter(&other("unreachable", true), 2, 0.0),
            Verdict::Fail(FailureKind::Unreachable)
        );
    }

    #[test]
    fn random_jitter_stays_in_bounds() {
        let p = RetryPolicy::default();
        for _ in 0..100 {
            match p.verdict(&http(500, ""), 1) {
                Verdict::Retry { after } => {
                    assert!(after >= ms(500) && after <= ms(750), "{after:?}")
                }
                v => panic!("{v:?}"),
            }
        }
    }

    #[test]
    fn quota_wording() {
        for body in [
            r#"{"error":{"type":"insufficient_quota"}}"#,
            r#"{"code":"quota_exceeded"}"#,
            r#"{"code":"usage_quota_exceeded"}"#,
            r#"{"error":"usage_limit_reached"}"#,
            "Your monthly quota has been exhausted",
            "Quota will reset at 00:00 UTC",
            "QUOTA EXCEEDED",
            "您的额度已用尽",
            "配额不足，请充值",
            "本月用量已达上限",
        ] {
            assert!(is_quota_exhausted(body), "{body}");
        }
        for body in [
            "",
            "Rate limit reached for requests per minute",
            "Too many requests",
            r#"{"code":"rate_limit_exceeded","message":"quota exceeded per minute"}"#,
            r#"{"type":"rate_limit_error","message":"insufficient_quota"}"#,
            "quota",
            "请求过于频繁",
        ] {
            assert!(!is_quota_exhausted(body), "{body}");
        }
    }
}
