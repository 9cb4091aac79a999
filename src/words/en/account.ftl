## The account's own mails, sent whatever the notification preferences: one message per
## kind, .subject and .body (after the greeting). $url is the mail's link, $until when it
## stops working, $reset_page where to reset the password.

account-verify_email =
    .subject = Confirm your email address for Kontor
    .body =
        { $change ->
            [yes] you asked to change the email address of your Kontor account to this one. The change takes effect when you confirm it.
           *[no] please confirm that this address belongs to your Kontor account.
        }

        <button { $url }>Confirm the address</button>

        The link works once, until { $until }. If you did not ask for this, ignore this mail: nothing changes.

account-password_reset =
    .subject = Reset your Kontor password
    .body =
        someone (probably you) asked to reset the password of your Kontor account.

        <button { $url }>Choose a new password</button>

        The link works once, until { $until }. A new password signs out every device and revokes every API token of the account. If you did not ask for this, ignore this mail: your password stays as it is.

# $new: the new address, masked; $done: yes once the change took effect (this goes to the old address).
account-email_changed =
    .subject =
        { $done ->
            [yes] The email address of your Kontor account was changed
           *[no] The email address of your Kontor account is being changed
        }
    .body =
        { $done ->
            [yes] your Kontor account's address is now { $new }. This address gets no more mail from it.
           *[no] your Kontor account's address is being changed to { $new }. The change takes effect once the new address is confirmed.
        }

        { $done ->
            [yes] If this was not you, someone who knew your password changed it: ask this server's operator for help.
           *[no] { account-not-you }
        }

# $how: reset (with a mailed link) or changed (by the signed-in owner).
account-password_changed =
    .subject = Your Kontor password was changed
    .body =
        { $how ->
            [reset] the password of your Kontor account was just reset with a link mailed to you. Every device was signed out and every API token revoked.
           *[changed] the password of your Kontor account was just changed. Every other device was signed out.
        }

        { account-not-you }

# $address: the endpoint's URL; $reason: gone (it answered 410) or failing; $settings: the settings page.
account-webhook_disabled =
    .subject = Kontor stopped sending to your webhook
    .body =
        Kontor switched off your webhook endpoint { $address }: { $reason ->
            [gone] it answered 410 Gone, which says it is no more.
           *[failing] a delivery kept failing until its last retry.
        }

        Once the receiver works, switch the endpoint on again in Settings → Webhooks; its delivery log can redeliver what it missed: <a { $settings }>{ $settings }</a>

account-not-you = If this was not you, reset your password now: <a { $reset_page }>{ $reset_page }</a>

account-footer = This mail is about your Kontor account itself, so it is sent whatever your notification preferences.
