"""What ``q`` asks before leaving while something raidtop started still runs."""

from __future__ import annotations

from textual.app import App


def leave_or_ask(app: App[None]) -> None:
    """Exit now, or first ask while fio or a confirmed lab/member action runs on a screen of the stack."""
    running = [work for screen in app.screen_stack for work in getattr(screen, "running_work", list)()]
    if not running:
        app.exit()
        return

    def answered(yes: bool | None) -> None:
        if yes:
            app.exit()

    # Imported when first used: dialogs are not on the first frame's path.
    from raidtop.screens.dialogs import ConfirmDialog

    app.push_screen(
        ConfirmDialog(
            "Quit raidtop while this runs?",
            "\n".join(running),
            "fio is stopped (its partial result is kept); an mdadm command already sent finishes in the kernel.",
            go="Quit",
        ),
        answered,
    )
