package org.marmot.tests

import org.marmot.SecretStore
import java.io.File
import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermissions
import java.security.SecureRandom

/**
 * A file-backed [SecretStore] for the JVM tests only: 0600 files in a 0700 folder.
 *
 * Why not in the app module: on Android the secrets belong in the Keystore (docs/android.md); a plain
 * file is a stand-in that lets the tests check what the manager stores, restores and forgets.
 */
class FileSecretStore(private val folder: File) : SecretStore {
    private val secretFile = File(folder, "install-secret")
    private val nsecFile = File(folder, "nsec")

    @Synchronized
    override fun installationSecretHex(): String {
        if (secretFile.exists()) return secretFile.readText().trim()
        val bytes = ByteArray(32).also { SecureRandom().nextBytes(it) }
        val hex = bytes.joinToString("") { String.format("%02x", it) }
        write(secretFile, hex)
        return hex
    }

    @Synchronized
    override fun loadNsec(): String? = if (nsecFile.exists()) nsecFile.readText().trim() else null

    @Synchronized
    override fun saveNsec(nsec: String) = write(nsecFile, nsec)

    @Synchronized
    override fun deleteNsec() {
        nsecFile.delete()
    }

    private fun write(file: File, text: String) {
        if (!folder.exists()) {
            folder.mkdirs()
            Files.setPosixFilePermissions(folder.toPath(), PosixFilePermissions.fromString("rwx------"))
        }
        val temporary = File(folder, file.name + ".new")
        temporary.writeText(text)
        Files.setPosixFilePermissions(temporary.toPath(), PosixFilePermissions.fromString("rw-------"))
        if (!temporary.renameTo(file)) throw IllegalStateException("could not write ${file.name}")
    }
}
