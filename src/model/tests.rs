use super::*;
use shakmaty::Color;

#[test]
fn names_round_trip_and_errors_name_the_choices() {
    for l in Lang::ALL {
        assert_eq!(l.as_str().parse::<Lang>(), Ok(*l));
    }
    assert_eq!("no".parse::<Lang>(), Ok(Lang::Nb));
    assert_eq!(
        "sv".parse::<Lang>().unwrap_err().to_string(),
        "\"sv\" is not one of da, nb, de, en"
    );
    assert_eq!("color".parse::<Sensing>(), Ok(Sensing::Colour));
    assert_eq!(
        Edition::names(),
        "fide-2001, fide-2009, fide-2009-no, fide-2023"
    );
    for r in EndReason::ALL {
        assert_eq!(r.as_str().parse::<EndReason>(), Ok(*r));
        assert_eq!(serde_json::to_string(r).unwrap(), format!("\"{r}\""));
    }
    for k in IrregularityKind::ALL {
        assert_eq!(k.to_string().parse::<IrregularityKind>(), Ok(*k));
    }
    assert_eq!(
        serde_json::from_str::<Mode>("\"blitz\"").unwrap(),
        Mode::Blitz
    );
    assert!(serde_json::from_str::<Mode>("\"bullet\"").is_err());
}

#[test]
fn penalties_render_as_the_contract_writes_them() {
    let two_min = Penalty::TimeAdded {
        to: Color::Black,
        ms: 120_000,
    };
    assert_eq!(two_min.to_string(), "+2 min to black");
    let ninety = Penalty::TimeAdded {
        to: Color::White,
        ms: 90_000,
    };
    assert_eq!(ninety.to_string(), "+90 s to white");
    assert_eq!(Penalty::GameLost.to_string(), "game lost");
    assert_eq!(serde_json::to_string(&Penalty::Draw).unwrap(), "\"draw\"");
}

#[test]
fn results_and_games_parse() {
    assert_eq!(parse_result("1/2-1/2"), Ok(KnownOutcome::Draw));
    assert_eq!(win_for(Color::Black).as_str(), "0-1");
    assert!(parse_result("1:0").is_err());
    assert_eq!(
        "3.12".parse::<GameId>(),
        Ok(GameId {
            round: 3,
            board: 12
        })
    );
    assert!("3".parse::<GameId>().is_err());
    assert!("3.x".parse::<GameId>().is_err());
    assert_eq!(GameId { round: 1, board: 7 }.to_string(), "1.7");
}
