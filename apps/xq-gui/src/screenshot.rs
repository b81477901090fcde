//! `--screenshot`: capture the window once it has settled, write a PNG, close.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use eframe::egui::{ColorImage, Context, ViewportCommand};

/// Frames to draw before the capture, so fonts are loaded and the layout has settled.
const SETTLE_FRAMES: u32 = 5;

/// A screenshot to take: counts frames, asks eframe for the pixels, writes them, closes the
/// window, and leaves the outcome for `main` to report.
pub(crate) struct Screenshot {
    path: PathBuf,
    frames: u32,
    pixels: Option<Receiver<Arc<ColorImage>>>,
    outcome: Arc<Mutex<Option<anyhow::Result<()>>>>,
}

impl Screenshot {
    pub(crate) const fn new(
        path: PathBuf,
        outcome: Arc<Mutex<Option<anyhow::Result<()>>>>,
    ) -> Self {
        Self {
            path,
            frames: 0,
            pixels: None,
            outcome,
        }
    }

    /// Called after each frame is laid out.
    pub(crate) fn after_frame(&mut self, ctx: &Context) {
        self.frames += 1;
        if let Some(pixels) = &self.pixels {
            if let Ok(image) = pixels.try_recv() {
                let result = write_png(&self.path, &image);
                if let Ok(mut outcome) = self.outcome.lock() {
                    *outcome = Some(result);
                }
                ctx.send_viewport_cmd(ViewportCommand::Close);
            }
        } else if self.frames >= SETTLE_FRAMES {
            let (sender, receiver) = channel();
            let repaint = ctx.clone();
            ctx.request_screenshot(move |image| {
                // The receiver lives as long as the window; a failed send means it closed.
                let _ = sender.send(image);
                repaint.request_repaint();
            });
            self.pixels = Some(receiver);
        }
        ctx.request_repaint();
    }
}

fn write_png(path: &PathBuf, image: &ColorImage) -> anyhow::Result<()> {
    let [width, height] = image.size;
    let bytes: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(|pixel| pixel.to_array())
        .collect();
    image::save_buffer_with_format(
        path,
        &bytes,
        u32::try_from(width)?,
        u32::try_from(height)?,
        image::ExtendedColorType::Rgba8,
        image::ImageFormat::Png,
    )
    .with_context(|| format!("cannot write {}", path.display()))
}
