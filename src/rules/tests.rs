use super::*;

#[test]
fn profiles_differ_where_the_laws_do() {
    let p01 = Profile::parse("fide-2001", "standard").unwrap();
    let p09 = Profile::parse("fide-2009", "standard").unwrap();
    let p23 = Profile::parse("fide-2023", "standard").unwrap();
    let p23r = Profile::parse("fide-2023", "rapid").unwrap();
    assert_eq!(p01.illegal_moves_to_lose, 3);
    assert!(!p01.illegal_loss_draw_exception);
    assert!(p09.illegal_loss_draw_exception);
    assert_eq!(p23.illegal_moves_to_lose, 2);
    assert_eq!(p23r.illegal_move_bonus_ms, 60_000);
    assert_eq!(p23.articles.illegal_move, "7.5.1");
    assert_eq!(p09.articles.illegal_move, "7.4a");
    assert!(Profile::parse("fide-1999", "standard")
        .unwrap_err()
        .contains("fide-2023"));
    assert!(Profile::parse("fide-2009", "bullet")
        .unwrap_err()
        .contains("mode"));
}
