//! Mixed-language phrases as SSML: where a vocabulary takes words from
//! another language (the German rank numbers, piece names and castling
//! words in a Norwegian, Danish or English game, E2.1), each such word is
//! spoken by the voice of its language, so "sieben" is not read with
//! Norwegian or English rules.
//!
//! espeak-ng reads SSML with `-m` (its manual: "Interpret SSML markup, and
//! ignore other < > tags"); a `<voice xml:lang="de">` element switches the
//! voice for its content (checked with espeak-ng 1.51: `-x` shows
//! `z'i:b@n` for "sieben" inside the element, `s'i:;e:b@n` read as
//! Norwegian). See `docs/voice.md`.

use super::{Lang, Vocabulary, Words, CASTLE_DE, PIECES_DE, RANKS_DE};

/// One stretch of a phrase and the language it is spoken in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The words (and the spaces and punctuation between them).
    pub text: String,
    /// The language whose voice speaks them.
    pub lang: Lang,
}

impl Vocabulary {
    /// The words this vocabulary takes from German while its language is
    /// another (empty for a German vocabulary, or one with national words).
    pub fn foreign_words(&self) -> Vec<&'static str> {
        let mut w = Vec::new();
        if self.lang == Lang::De {
            return w;
        }
        let opts = self.options;
        let default_german = !matches!(self.lang, Lang::Da);
        if opts.ranks.map_or(default_german, |r| r == Words::German) {
            w.extend(RANKS_DE);
        }
        if opts.pieces.map_or(default_german, |p| p == Words::German) {
            w.extend(PIECES_DE);
            for phrase in [CASTLE_DE.0, CASTLE_DE.1] {
                w.extend(phrase.split(' '));
            }
        }
        w
    }

    /// `text` cut into stretches by language: the vocabulary's German words
    /// (see [`Vocabulary::foreign_words`]) in German, the rest in the
    /// vocabulary's language. Neighbouring stretches of one language are
    /// joined; the concatenated texts give `text` back.
    pub fn segments(&self, text: &str) -> Vec<Segment> {
        let foreign = self.foreign_words();
        let is_foreign = |word: &str| {
            foreign
                .iter()
                .any(|f| *f == word || capitalised(f).as_deref() == Some(word))
        };
        let mut out: Vec<Segment> = Vec::new();
        fn push(out: &mut Vec<Segment>, s: &str, lang: Lang) {
            match out.last_mut() {
                Some(last) if last.lang == lang => last.text.push_str(s),
                _ => out.push(Segment {
                    text: s.to_owned(),
                    lang,
                }),
            }
        }
        let mut rest = text;
        while !rest.is_empty() {
            let word_len = rest
                .char_indices()
                .find(|(_, c)| !c.is_alphabetic())
                .map_or(rest.len(), |(i, _)| i);
            if word_len == 0 {
                // Separators: they join the foreign stretch when a foreign
                // word follows them directly (e.g. "Kurze Rochade").
                let sep_len = rest
                    .char_indices()
                    .find(|(_, c)| c.is_alphabetic())
                    .map_or(rest.len(), |(i, _)| i);
                let (sep, after) = rest.split_at(sep_len);
                let next_word: String = after.chars().take_while(|c| c.is_alphabetic()).collect();
                let in_foreign = out.last().is_some_and(|l| l.lang != self.lang);
                let lang = if in_foreign && sep.trim().is_empty() && is_foreign(&next_word) {
                    Lang::De
                } else {
                    self.lang
                };
                push(&mut out, sep, lang);
                rest = after;
            } else {
                let (word, after) = rest.split_at(word_len);
                let lang = if is_foreign(word) {
                    Lang::De
                } else {
                    self.lang
                };
                push(&mut out, word, lang);
                rest = after;
            }
        }
        out
    }

    /// The phrase as SSML for `espeak-ng -m` when it mixes languages: the
    /// vocabulary's language as the document's, each German stretch in a
    /// `<voice xml:lang="de">` element. `None` when every word is the
    /// vocabulary's own (the plain text is spoken as it is).
    pub fn ssml(&self, text: &str) -> Option<String> {
        let segs = self.segments(text);
        if segs.iter().all(|s| s.lang == self.lang) {
            return None;
        }
        let mut out = format!("<speak xml:lang=\"{}\">", self.lang.code());
        for s in &segs {
            if s.lang == self.lang {
                out.push_str(&escape(&s.text));
            } else {
                out.push_str(&format!(
                    "<voice xml:lang=\"{}\">{}</voice>",
                    s.lang.code(),
                    escape(&s.text)
                ));
            }
        }
        out.push_str("</speak>");
        Some(out)
    }
}

fn capitalised(w: &str) -> Option<String> {
    let mut c = w.chars();
    let first = c.next()?;
    first
        .is_lowercase()
        .then(|| first.to_uppercase().chain(c).collect())
}

/// XML text escaping (`&`, `<`, `>`, quotes).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Edition;
    use crate::voice::VoiceOptions;

    #[test]
    fn german_words_in_a_norwegian_game_get_the_german_voice() {
        let v = Vocabulary::new(Lang::Nb, Edition::Fide2009No, VoiceOptions::default());
        assert_eq!(
            v.ssml("Springer Felix sieben, sjakk").as_deref(),
            Some(
                "<speak xml:lang=\"nb\"><voice xml:lang=\"de\">Springer</voice> Felix \
                 <voice xml:lang=\"de\">sieben</voice>, sjakk</speak>"
            )
        );
        assert_eq!(
            v.ssml("Kurze Rochade").as_deref(),
            Some("<speak xml:lang=\"nb\"><voice xml:lang=\"de\">Kurze Rochade</voice></speak>")
        );
        let joined: String = v
            .segments("Bauer Eva slår David fünf")
            .iter()
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(joined, "Bauer Eva slår David fünf");
    }

    #[test]
    fn one_language_needs_no_markup() {
        let da = Vocabulary::new(Lang::Da, Edition::Fide2009, VoiceOptions::default());
        assert_eq!(da.ssml("Springer Frederik tre"), None);
        let de = Vocabulary::new(Lang::De, Edition::Fide2023, VoiceOptions::default());
        assert_eq!(de.ssml("Springer Felix drei"), None);
        let nb = Vocabulary::new(Lang::Nb, Edition::Fide2009No, VoiceOptions::scandinavian());
        assert_eq!(nb.ssml("Springer Felix tre"), None);
        // Danish with the German ranks: only the ranks switch.
        let da_de = Vocabulary::new(
            Lang::Da,
            Edition::Fide2009,
            VoiceOptions {
                ranks: Some(Words::German),
                ..VoiceOptions::default()
            },
        );
        assert_eq!(
            da_de.ssml("Springer Frederik drei").as_deref(),
            Some("<speak xml:lang=\"da\">Springer Frederik <voice xml:lang=\"de\">drei</voice></speak>")
        );
    }

    #[test]
    fn text_is_escaped() {
        let v = Vocabulary::new(Lang::En, Edition::Fide2023, VoiceOptions::default());
        assert_eq!(
            v.ssml("a<b & acht").as_deref(),
            Some("<speak xml:lang=\"en\">a&lt;b &amp; <voice xml:lang=\"de\">acht</voice></speak>")
        );
    }
}
