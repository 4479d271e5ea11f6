package org.marmot

/**
 * Where the host keeps the account's nsec and the installation secret (the Android Keystore's job).
 *
 * Why the manager asks for it: the library never stores the nsec, and on Android the installation
 * secret is passed to `marmot_app_create` instead of sitting in a plain file. Tests use a file-backed
 * stand-in; an app implements this with an AES-GCM key in the Keystore (docs/android.md).
 */
interface SecretStore {
    /** The 32-byte installation secret as 64 hex digits, made once and returned the same ever after. */
    fun installationSecretHex(): String

    /** The stored nsec, or null when no account was kept. */
    fun loadNsec(): String?

    /** Keeps [nsec] (from `accountCreated` or `secretAccepted`), replacing any earlier one. */
    fun saveNsec(nsec: String)

    /** Forgets the nsec (`secretForgotten`: the user logged out). */
    fun deleteNsec()
}
