"""gettext catalogs (``<lang>/LC_MESSAGES/tutor.po`` and its compiled ``.mo``); see tutor.common.i18n."""
