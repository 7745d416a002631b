//! The approval on the command line: a question on the terminal before each run, clearly set apart from everything printed before it.

use std::borrow::Cow;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use super::shown::shown;
use crate::lesson::agent_types::{Approval, Decision};
use crate::lesson::types::Lang;

/// The line the question follows. Nothing from the workspace, the program or a model is printed
/// at the start of a line (it is indented under a label), so this line cannot be imitated.
const RULE: &str = "════════════════════════════════════════════════════════════";

/// Asks on the terminal before each run; without a terminal to ask on, the answer is deny, and
/// says why.
pub struct Terminal {
    pub dir: PathBuf,
    pub asked: usize,
    /// Stdout holds one JSON object, so notes go to stderr; otherwise they are part of the
    /// transcript on stdout.
    pub json: bool,
}

impl Terminal {
    /// Says why the answer was deny without asking anyone.
    fn note(&self, text: &str) {
        if self.json {
            eprintln!("practice: {text}");
        } else if writeln!(std::io::stdout(), "  {text}").is_err() {
            // The reader has gone (`practice | head`): end quietly, as the transcript does.
            std::process::exit(0);
        }
    }
}

impl Approval for Terminal {
    fn decide(&mut self, lang: Lang) -> Decision {
        self.asked += 1;
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            self.note(lang.pick(
                "（没有询问：标准输入不是终端，无人可问，所以答案是拒绝。要允许运行，请用 --decision allow。）",
                "(Not asked: stdin is not a terminal, so there is no one to ask and the answer is deny. To allow the run, use --decision allow.)",
            ));
            return Decision::Deny;
        }
        let dir = self.dir.display().to_string();
        let dir = shown(&dir);
        let prompt = match lang {
            Lang::Zh => {
                format!("【practice 询问】模型请求在 {dir} 里运行 python3 main.py。允许吗？[y/N] ")
            }
            Lang::En => format!(
                "[practice asks] The model asks to run python3 main.py in {dir}. Allow? [y/N] "
            ),
        };
        // The question goes to stderr, so `--json` output on stdout stays one JSON object. It
        // starts on a fresh line after a rule, whatever was printed before it.
        eprint!("\n{RULE}\n{prompt}");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => {
                self.note(lang.pick(
                    "（没有回答：输入已结束，所以答案是拒绝。）",
                    "(No answer: the input ended, so the answer is deny.)",
                ));
                return Decision::Deny;
            }
            Ok(_) => {}
        }
        match line.trim().to_lowercase().as_str() {
            "y" | "yes" | "是" | "允许" => Decision::Allow,
            _ => Decision::Deny,
        }
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed("asks on the terminal (deny when not interactive)")
    }
}
