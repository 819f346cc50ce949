/// The version `tracker --version` prints and the User-Agent carries.
public enum Version {
    public static let current = "0.1.0"
}
