//! What admission is told: its mode and, for the static mode, the limits typed in by hand.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How a fleet admits calls before they are made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdmissionMode {
    /// No admission: calls go at once, and the success path pays nothing for it. The default.
    #[default]
    Off,
    /// The limits of [`AdmissionConfig::limits`], given by hand.
    Static,
    /// Limits learned from throttles alone (429 and 529) by a CUBIC controller of the kind AWS
    /// SDKs run in their adaptive retry mode; no admission until the first throttle.
    Adaptive,
    /// Limits learned from the providers' rate-limit headers; the adaptive controller while no
    /// header has come.
    Headers,
}

impl AdmissionMode {
    /// The snake_case name (`off`, `static`, `adaptive`, `headers`).
    pub fn as_str(self) -> &'static str {
        match self {
            AdmissionMode::Off => "off",
            AdmissionMode::Static => "static",
            AdmissionMode::Adaptive => "adaptive",
            AdmissionMode::Headers => "headers",
        }
    }
}

/// Limits per window (a minute unless [`AdmissionConfig::window_s`] says otherwise). `None`
/// leaves a dimension unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Requests per window (RPM).
    pub requests: Option<f64>,
    /// Input plus output tokens per window (OpenAI's TPM).
    pub tokens: Option<f64>,
    /// Input tokens per window (Anthropic's ITPM).
    pub input_tokens: Option<f64>,
    /// Output tokens per window (Anthropic's OTPM).
    pub output_tokens: Option<f64>,
}

/// The largest limit, cost or usage taken (a trillion units); anything above is garbage.
pub const MAX_UNITS: f64 = 1e12;

impl Limits {
    /// The limit of `d`.
    pub fn get(&self, d: super::Dimension) -> Option<f64> {
        match d {
            super::Dimension::Requests => self.requests,
            super::Dimension::Tokens => self.tokens,
            super::Dimension::InputTokens => self.input_tokens,
            super::Dimension::OutputTokens => self.output_tokens,
        }
    }

    fn validate(&self) -> Result<()> {
        let bad = |x: Option<f64>| x.is_some_and(|x| !(x.is_finite() && x > 0.0 && x <= MAX_UNITS));
        if [
            self.requests,
            self.tokens,
            self.input_tokens,
            self.output_tokens,
        ]
        .into_iter()
        .any(bad)
        {
            return Err(Error::invalid_policy(
                "admission limits must be finite, above 0 and at most 1e12",
            ));
        }
        Ok(())
    }
}

/// Admission settings of a fleet ([`super::super::FleetConfig::admission`]).
///
/// # Default
/// Off; a window of 60 s; the input-token estimate corrected by the usage calls report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdmissionConfig {
    /// How calls are admitted. Default: [`AdmissionMode::Off`].
    pub mode: AdmissionMode,
    /// The limits of the static mode. Default: none.
    pub limits: Limits,
    /// The window, in seconds, of a limit that does not state its own (providers count per
    /// minute). Default: 60.
    pub window_s: f64,
    /// Whether the estimate of input tokens is corrected by the observed ratio of reported to
    /// estimated usage, per key. Default: `true`.
    pub correct_estimates: bool,
}

impl Default for AdmissionConfig {
    fn default() -> Self {
        AdmissionConfig {
            mode: AdmissionMode::Off,
            limits: Limits::default(),
            window_s: 60.0,
            correct_estimates: true,
        }
    }
}

impl AdmissionConfig {
    /// Admission in `mode` with the other settings at their defaults.
    pub fn mode(mode: AdmissionMode) -> Self {
        AdmissionConfig {
            mode,
            ..AdmissionConfig::default()
        }
    }

    /// Static admission at `limits` per minute.
    pub fn fixed(limits: Limits) -> Self {
        AdmissionConfig {
            mode: AdmissionMode::Static,
            limits,
            ..AdmissionConfig::default()
        }
    }

    /// Whether admission is on.
    pub fn is_on(&self) -> bool {
        self.mode != AdmissionMode::Off
    }

    /// Checks every number: limits finite and positive, the window between 1 ms and a day.
    pub fn validate(&self) -> Result<()> {
        self.limits.validate()?;
        if !(self.window_s.is_finite() && self.window_s >= 0.001 && self.window_s <= 86_400.0) {
            return Err(Error::invalid_policy(
                "admission window_s must be between 0.001 and 86400",
            ));
        }
        if self.mode == AdmissionMode::Static
            && [
                self.limits.requests,
                self.limits.tokens,
                self.limits.input_tokens,
                self.limits.output_tokens,
            ]
            .iter()
            .all(Option::is_none)
        {
            return Err(Error::invalid_policy(
                "static admission needs at least one limit",
            ));
        }
        Ok(())
    }
}

/// An admission configuration as a mode's name alone (`"headers"`), the whole settings, or
/// `null` / `false` (off).
pub(crate) fn mode_or_settings<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<AdmissionConfig, D::Error> {
    use serde::de::Error as _;
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(mode) => serde_json::from_value(serde_json::Value::String(mode))
            .map(AdmissionConfig::mode)
            .map_err(|_| {
                D::Error::custom(
                    "admission must be off, static, adaptive, headers or a map of settings",
                )
            }),
        // As for the other sections, null and false switch it off.
        serde_json::Value::Null | serde_json::Value::Bool(false) => Ok(AdmissionConfig::default()),
        v => serde_json::from_value(v).map_err(D::Error::custom),
    }
}
