//! `eboard kit`: a board design's builder's kit (wiring SVG and the
//! builder's sheet: parts, power, Pi models, the built-in clock) from its
//! `hw/*.toml`, optionally checked against a board's config (`[clock]`
//! pins). The kit itself is [`crate::sensors::kit`].

use super::Anyhow;
use crate::sensors::kit::{sheet, svg, ClockWiring, Kit};
use crate::sensors::HwDesign;
use anyhow::Context;
use std::path::PathBuf;

/// The arguments of `eboard kit`.
#[derive(Debug, clap::Args)]
pub struct KitArgs {
    /// The board design (a file in hw/).
    #[arg(long, value_name = "HW_TOML")]
    hw: PathBuf,
    /// A board's config: its `[clock]` pins are checked against the design
    /// and drawn (default: the kit proposes free pins).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Write NAME.svg (wiring) and NAME.md (parts, power, clock) here.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// `eboard kit --hw FILE [--config FILE] --out DIR`: writes the design's
/// `NAME.svg` and `NAME.md` and prints their paths. Errors name the file
/// and key (a clock pin the design uses, a pin off the header).
pub fn kit(args: KitArgs) -> anyhow::Result<()> {
    let design = HwDesign::load(&args.hw).anyhow()?;
    let clock = match &args.config {
        Some(path) => {
            let cfg = crate::config::Config::load(path).anyhow()?;
            let c = &cfg.clock;
            match (c.white_pin, c.black_pin) {
                (Some(white_pin), Some(black_pin)) => Some(ClockWiring {
                    white_pin,
                    black_pin,
                    lcd_address: c
                        .lcd_address
                        .unwrap_or(crate::clock::builtin::LCD_DEFAULT_ADDR),
                    proposed: false,
                }),
                _ => {
                    tracing::warn!(config = %path.display(), "no [clock] white_pin / black_pin: the kit proposes free pins");
                    None
                }
            }
        }
        None => None,
    };
    let kit = Kit::of(&design, clock).with_context(|| match &args.config {
        Some(c) => format!("{} with {}", design.shown(), c.display()),
        None => design.shown(),
    })?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("{}: cannot create the directory", args.out.display()))?;
    for (ext, text) in [("svg", svg::render(&kit)), ("md", sheet::render(&kit))] {
        let path = args.out.join(format!("{}.{ext}", kit.design));
        std::fs::write(&path, text).with_context(|| format!("{}: cannot write", path.display()))?;
        println!("{}", path.display());
    }
    Ok(())
}
