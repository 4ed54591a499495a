"""Unit: OpenCode's family record derives exactly the names OpenCode's pins give, and a
fork's record renames each of them (Kilo's, ``lab_widget.provider.kilo._compat.KILO``)."""

from __future__ import annotations

from lab_widget.provider.kilo._compat import KILO
from lab_widget.provider.opencode import _compat
from lab_widget.provider.opencode._family import OPENCODE


def test_opencode_s_record_is_its_pins() -> None:
    assert OPENCODE.isolated_env == _compat.ISOLATED_ENV
    assert OPENCODE.unset_env == _compat.UNSET_ENV
    assert OPENCODE.plan_mode_env == _compat.PLAN_MODE_ENV
    assert OPENCODE.api_key_env == _compat.ENV_KEY
    assert (OPENCODE.database_env, OPENCODE.database_file) == (_compat.DB_ENV, _compat.DB_FILE)
    assert OPENCODE.auth_file == _compat.AUTH_FILE
    assert OPENCODE.command_dirs == _compat.COMMAND_DIRS
    assert OPENCODE.user_command_dirs == _compat.USER_COMMAND_DIRS
    assert OPENCODE.always_scope == _compat.ALWAYS_SCOPE
    assert (OPENCODE.config_content_env, OPENCODE.permission_env) == (
        "OPENCODE_CONFIG_CONTENT",
        "OPENCODE_PERMISSION",
    )
    assert {OPENCODE.config_content_env, OPENCODE.permission_env} <= _compat.UNSET_ENV
    assert OPENCODE.server_password_env is None  # OpenCode's server asks for none


def test_a_fork_s_record_renames_every_name() -> None:
    assert KILO.config_file == "kilo/kilo.json"
    assert KILO.database_file == "kilo/kilo.db"
    assert KILO.isolated_env == {"KILO_DISABLE_MODELS_FETCH": "1", "KILO_DISABLE_AUTOUPDATE": "1"}
    assert KILO.server_password_env == "KILO_SERVER_PASSWORD"
    assert not any("OPENCODE" in name for name in KILO.unset_env | set(KILO.isolated_env))
    assert KILO.always_scope.format(what="echo *") == "echo * until Kilo is restarted"
