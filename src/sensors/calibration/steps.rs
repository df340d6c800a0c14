//! The calibration's steps as the operator is asked to do them, and who
//! does them: a person at a terminal ([`TerminalOperator`]) or the
//! simulated board (`virtual_hw::VirtualOperator`).

use super::CalError;
use std::io::{BufRead, Write};

/// A calibration step: what the operator is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Remove every piece.
    EmptyBoard,
    /// Set up the initial position, White at the near side.
    StartPosition,
    /// Lift the white pawn from e2 and hold it above the board.
    LiftE2,
    /// Put the pawn back, then move every piece two ranks towards the
    /// middle on its own file (White's to ranks 3–4, Black's to 6–5): the
    /// 32 squares empty in the initial position each get a piece, so all
    /// 64 sensors are tested with a magnet (issue 43 §5).
    MiddleRanks,
    /// Put the pieces back on their starting squares.
    Done,
}

impl Step {
    /// The instruction shown on the terminal.
    pub fn instruction(self) -> &'static str {
        match self {
            Step::EmptyBoard => "Remove every piece from the board, then press Enter.",
            Step::StartPosition => {
                "Set up the initial position (White on ranks 1-2, as you will play), then press Enter."
            }
            Step::LiftE2 => {
                "Lift the white pawn from e2 (the king's pawn) and hold it well above the board, then press Enter."
            }
            Step::MiddleRanks => {
                "Put the pawn back on e2. Then move every piece two ranks towards the middle, each on its own file: \
                 White's from ranks 1 and 2 to ranks 3 and 4, Black's from ranks 8 and 7 to ranks 6 and 5. Then press Enter."
            }
            Step::Done => "Put the pieces back on their starting squares. Calibration done.",
        }
    }
}

/// Who carries out the steps: a person at a terminal, or a simulated board.
pub trait Operator {
    /// Carries out `step`; returns when the board shows it.
    fn perform(&mut self, step: Step) -> Result<(), CalError>;
}

/// Prompts on a terminal and waits for Enter.
pub struct TerminalOperator<R, W> {
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> TerminalOperator<R, W> {
    /// Prompts on `output`, reads Enter from `input`.
    pub fn new(input: R, output: W) -> Self {
        TerminalOperator { input, output }
    }
}

impl<R: BufRead, W: Write> Operator for TerminalOperator<R, W> {
    fn perform(&mut self, step: Step) -> Result<(), CalError> {
        let io = |e: std::io::Error| CalError::Io(format!("terminal: {e}"));
        writeln!(self.output, "{}", step.instruction()).map_err(io)?;
        self.output.flush().map_err(io)?;
        if step != Step::Done {
            let mut line = String::new();
            if self.input.read_line(&mut line).map_err(io)? == 0 {
                return Err(CalError::Io("terminal: input closed".to_owned()));
            }
        }
        Ok(())
    }
}
