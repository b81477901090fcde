//! The speaker: a short synthesized tone for each [`Cue`] the view-model gives, unless muted.
//!
//! The tones are made on the fly (a sine with a quick attack and a decay), so there are no
//! sound files to ship. Where they go depends on the build: in the browser, to Web Audio; on
//! the desktop with the `sound` feature, to the default audio device through rodio; on the
//! desktop without it, nowhere, so that the default build links no system audio library.

use xq_gui_model::Cue;

/// Where the tones go: a device, or in tests a log of what would have sounded.
pub(crate) trait Output {
    /// Sounds `cue` now, without waiting for it to end.
    fn play(&mut self, cue: Cue);
}

/// The app's speaker: the mute switch in front of the build's [`Output`].
pub(crate) struct Speaker {
    /// Whether cues are dropped instead of played: the controls' "Mute" switch.
    pub(crate) muted: bool,
    output: Box<dyn Output>,
}

impl Speaker {
    /// A speaker playing through `output`, not muted.
    pub(crate) fn new(output: Box<dyn Output>) -> Self {
        Self {
            muted: false,
            output,
        }
    }

    /// The speaker of this build: Web Audio in the browser, the audio device on the desktop
    /// with the `sound` feature, and silence without it.
    pub(crate) fn system() -> Self {
        Self::new(Box::<System>::default())
    }

    /// Sounds `cue`, unless muted.
    pub(crate) fn play(&mut self, cue: Cue) {
        if !self.muted {
            self.output.play(cue);
        }
    }
}

#[cfg(all(feature = "sound", not(target_arch = "wasm32")))]
use self::device::Device as System;
#[cfg(not(any(feature = "sound", target_arch = "wasm32")))]
use self::silent::Silent as System;
#[cfg(target_arch = "wasm32")]
use self::web::WebAudio as System;

/// A cue's sound: one sine tone that starts at once and dies away within `length`.
#[cfg(any(feature = "sound", target_arch = "wasm32", test))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Tone {
    hertz: f32,
    length: std::time::Duration,
    /// The loudness at the peak, of full scale: low, since a move sounds often.
    gain: f32,
}

#[cfg(any(feature = "sound", target_arch = "wasm32", test))]
impl Tone {
    /// How long a tone takes to reach its peak: long enough not to click, short enough to
    /// sound at once.
    const ATTACK: std::time::Duration = std::time::Duration::from_millis(5);

    /// A move is a short high tick, a capture a lower and longer knock, a check a high tone
    /// that rings on: told apart without looking.
    const fn of(cue: Cue) -> Self {
        let (hertz, millis, gain) = match cue {
            Cue::Move => (880.0, 70, 0.2),
            Cue::Capture => (330.0, 140, 0.3),
            Cue::Check => (1320.0, 260, 0.25),
        };
        Self {
            hertz,
            length: std::time::Duration::from_millis(millis),
            gain,
        }
    }
}

/// The default desktop build: no audio library, so cues are dropped.
#[cfg(not(any(feature = "sound", target_arch = "wasm32")))]
mod silent {
    use xq_gui_model::Cue;

    /// Plays nothing.
    #[derive(Default)]
    pub(super) struct Silent;

    impl super::Output for Silent {
        fn play(&mut self, _cue: Cue) {}
    }
}

/// The desktop's default audio device, through rodio (the `sound` feature).
#[cfg(all(feature = "sound", not(target_arch = "wasm32")))]
mod device {
    use rodio::source::SineWave;
    use rodio::{DeviceSinkBuilder, MixerDeviceSink, Source as _};
    use xq_gui_model::Cue;

    use super::Tone;

    /// The default output device, opened at the first cue, so a window where nothing is
    /// played opens none; a machine without one stays silent and says so once.
    #[derive(Default)]
    pub(super) enum Device {
        #[default]
        Unopened,
        Open(MixerDeviceSink),
        Unavailable,
    }

    impl super::Output for Device {
        fn play(&mut self, cue: Cue) {
            if matches!(self, Self::Unopened) {
                *self = match DeviceSinkBuilder::open_default_sink() {
                    Ok(mut sink) => {
                        // Closing it when the window closes is no news.
                        sink.log_on_drop(false);
                        Self::Open(sink)
                    }
                    Err(error) => {
                        eprintln!("xq-gui: no sound: {error}");
                        Self::Unavailable
                    }
                };
            }
            if let Self::Open(sink) = self {
                let tone = Tone::of(cue);
                let sine = SineWave::new(tone.hertz)
                    .take_duration(tone.length)
                    .linear_gain_ramp(tone.length, tone.gain, 0.0, true)
                    .fade_in(Tone::ATTACK);
                sink.mixer().add(sine);
            }
        }
    }
}

/// The browser's Web Audio: an oscillator through a gain envelope for each tone.
#[cfg(target_arch = "wasm32")]
mod web {
    use web_sys::wasm_bindgen::JsValue;
    use web_sys::{AudioContext, AudioContextState, OscillatorType};
    use xq_gui_model::Cue;

    use super::Tone;

    /// The level a tone decays to: an exponential ramp cannot reach zero.
    const SILENCE: f32 = 1e-4;

    /// The page's audio context, made at the first cue: by then the player has clicked, which
    /// browsers ask for before they let a page make sound.
    #[derive(Default)]
    pub(super) struct WebAudio {
        context: Option<AudioContext>,
    }

    impl super::Output for WebAudio {
        fn play(&mut self, cue: Cue) {
            if let Err(error) = self.tone(Tone::of(cue)) {
                web_sys::console::warn_2(&"xq: cannot play a sound:".into(), &error);
            }
        }
    }

    impl WebAudio {
        fn tone(&mut self, tone: Tone) -> Result<(), JsValue> {
            let context = match &mut self.context {
                Some(context) => context,
                empty => empty.insert(AudioContext::new()?),
            };
            // A context made before the page was used starts suspended, its time standing
            // still: the tone below waits for the (asynchronous) resumption.
            if context.state() == AudioContextState::Suspended {
                let _resumed = context.resume()?;
            }
            let start = context.current_time();
            let peak = start + Tone::ATTACK.as_secs_f64();
            let end = start + tone.length.as_secs_f64();
            let oscillator = context.create_oscillator()?;
            oscillator.set_type(OscillatorType::Sine);
            oscillator.frequency().set_value(tone.hertz);
            let envelope = context.create_gain()?;
            let gain = envelope.gain();
            gain.set_value_at_time(0.0, start)?;
            gain.linear_ramp_to_value_at_time(tone.gain, peak)?;
            gain.exponential_ramp_to_value_at_time(SILENCE, end)?;
            oscillator.connect_with_audio_node(&envelope)?;
            envelope.connect_with_audio_node(&context.destination())?;
            oscillator.start()?;
            oscillator.stop_with_when(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cue_has_its_own_short_quiet_tone() {
        let tones = [Cue::Move, Cue::Capture, Cue::Check].map(Tone::of);
        for (i, tone) in tones.iter().enumerate() {
            assert!(tone.length > Tone::ATTACK, "{tone:?}");
            assert!(tone.length.as_millis() <= 300, "{tone:?}");
            assert!(tone.gain > 0.0 && tone.gain <= 0.5, "{tone:?}");
            for other in &tones[i + 1..] {
                assert!(
                    (tone.hertz - other.hertz).abs() > 100.0,
                    "{tone:?} {other:?}"
                );
            }
        }
    }
}
